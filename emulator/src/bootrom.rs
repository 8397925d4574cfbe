//! Our own 512 KiB boot ROM for emulators that need a BIOS (mednafen). No Sony code: the words below are
//! assembled here. At the reset vector it does what the BIOS does before it starts a game, for programs
//! that make no BIOS calls but the TTY ones: memory-control registers, COP0, kernel vectors, then it copies the
//! PS-EXE's text into RAM, zeroes its BSS, sets SP/FP/GP and jumps to its entry point.
//!
//! The text is not in the ROM: the emulator is handed the PS-EXE itself as its content, and mednafen's
//! PSX core maps a loaded EXE's text at expansion region 1 from [`TEXT_SOURCE`] on (its own side-loader
//! copies it from there). The ROM copies it from there too, so a program may fill RAM: its text may
//! reach 0x80200000 from above the 64 KiB kernel area (1,966,080 bytes from 0x80010000), where a ROM
//! that carried the EXE held at most 491,520 bytes. Before the copy the ROM compares the text's first
//! and last words there with the program's (built into the ROM): a core that does not map the text
//! leaves [`mailbox::NO_TEXT`] in the mailbox and stops, which the host reports.
//!
//! ROM layout (offsets from 0xBFC00000):
//! - `0x0000` reset code;
//! - `0x1000` the kernel blob copied to RAM 0x80000080 (exception vector, the A0/B0 TTY calls, a
//!   return-0 C0 stub, the exception handler);
//! - `0x6990` untouched: mednafen's own EXE side-loader writes a jump there (the ROM never runs it);
//! - zero padding up to 512 KiB.
//!
//! The ROM leaves a mailbox in low RAM (see [`mailbox`]) so the host can tell when the program started
//! and whether it raised exceptions, and what the program printed (its TTY buffer).
use std::path::Path;

use anyhow::{ensure, Context, Result};

// The assembler offers more than the ROM uses: the test programs need calls, syscalls and label loads.
#[allow(dead_code)]
pub mod mips;
pub mod psexe;

use mips::*;
pub use psexe::PsExe;

pub const ROM_SIZE: usize = 512 * 1024;
pub const ROM_BASE: u32 = 0xBFC0_0000;
const KERNEL_BLOB_OFFSET: usize = 0x1000;
/// The word mednafen patches when it is handed a PS-EXE as content; nothing of ours may live there.
const MEDNAFEN_PATCH_OFFSET: usize = 0x6990;
/// Where mednafen's core shows the text of the PS-EXE it was handed: expansion region 1 (0x1F000000)
/// past its own 64 KiB of loader memory, read uncached.
pub const TEXT_SOURCE: u32 = 0xBF01_0000;

/// Where the kernel blob lands: the general exception vector.
const KERNEL_BLOB_RAM: u32 = 0x8000_0080;
const EXCEPTION_HANDLER_RAM: u32 = 0x8000_0100;

/// Words in low RAM (physical addresses) that the boot ROM writes for the host to read.
pub mod mailbox {
    /// Holds [`HANDED_OVER`] once the ROM jumps to the program (written last, just before the jump).
    pub const STATE: usize = 0x200;
    /// Number of exceptions taken since the program started.
    pub const EXCEPTIONS: usize = 0x204;
    /// EPC and CAUSE of the last exception.
    pub const LAST_EPC: usize = 0x208;
    pub const LAST_CAUSE: usize = 0x20C;
    /// "PXBR" little-endian.
    pub const HANDED_OVER: u32 = u32::from_le_bytes(*b"PXBR");
    /// "PXNT": the program's text is not at `TEXT_SOURCE` (the ROM stopped before copying it).
    pub const NO_TEXT: u32 = u32::from_le_bytes(*b"PXNT");
    /// Characters the program wrote through the BIOS's TTY calls since it started (all of them, also
    /// those past the buffer's end).
    pub const TTY_LEN: usize = 0x210;
    /// The first `TTY_CAPACITY` of those characters.
    pub const TTY_BUFFER: usize = 0x1000;
    pub const TTY_CAPACITY: usize = 0x7000;
}

/// Memory-control values the BIOS writes at reset (psx-spx, "Memory Control"): expansion 1/2 bases,
/// the delay/size registers of expansion 1, 3, BIOS ROM, SPU, CD-ROM, expansion 2, COM_DELAY, RAM_SIZE.
const MEMORY_CONTROL: [(u16, u32); 10] = [
    (0x1000, 0x1F00_0000),
    (0x1004, 0x1F80_2000),
    (0x1008, 0x0013_243F),
    (0x100C, 0x0000_3022),
    (0x1010, 0x0013_243F),
    (0x1014, 0x2009_31E1),
    (0x1018, 0x0002_0843),
    (0x101C, 0x0007_0777),
    (0x1020, 0x0003_1125),
    (0x1060, 0x0000_0B88),
];
/// Cache control (0xFFFE0130) as the BIOS leaves it: instruction cache and scratchpad enabled.
const CACHE_CONTROL: u32 = 0x0001_E988;

/// Builds the ROM image that boots `exe`, whose text the emulator shows at [`TEXT_SOURCE`].
pub fn build(exe: &PsExe) -> Result<Vec<u8>> {
    let reset = reset_code(exe)?;
    let kernel = kernel_blob()?;
    ensure!(
        KERNEL_BLOB_OFFSET >= 4 * reset.len(),
        "reset code overruns the kernel blob"
    );
    ensure!(
        KERNEL_BLOB_OFFSET + 4 * kernel.len() <= MEDNAFEN_PATCH_OFFSET,
        "kernel blob overruns 0x6990"
    );

    let mut rom = vec![0u8; ROM_SIZE];
    rom[..4 * reset.len()].copy_from_slice(&to_bytes(&reset));
    rom[KERNEL_BLOB_OFFSET..KERNEL_BLOB_OFFSET + 4 * kernel.len()]
        .copy_from_slice(&to_bytes(&kernel));
    Ok(rom)
}

/// The names mednafen looks for (Japan, North America, Europe); the same image serves all three.
pub const FIRMWARE_NAMES: [&str; 3] = ["scph5500.bin", "scph5501.bin", "scph5502.bin"];

/// Writes `rom` under every firmware name into `dir`.
pub fn write_firmware(dir: &Path, rom: &[u8]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for name in FIRMWARE_NAMES {
        let path = dir.join(name);
        std::fs::write(&path, rom)
            .with_context(|| format!("writing the boot ROM to {}", path.display()))?;
    }
    Ok(())
}

/// Copies `words` 32-bit words from `src` to `dst` (no code when there is nothing to copy).
fn copy_words(a: &mut Asm, src: u32, dst: u32, words: u32) {
    if words == 0 {
        return;
    }
    let top = a.new_label();
    a.li(T0, src);
    a.li(T1, dst);
    a.li(T2, dst + 4 * words);
    a.bind(top);
    a.emit(lw(T3, 0, T0));
    a.emit(addiu(T0, T0, 4));
    a.emit(addiu(T1, T1, 4)); // also covers lw's load delay before T3 is used
    a.bne(T1, T2, top);
    a.emit(sw(T3, -4, T1));
}

/// The text's first and last words at [`TEXT_SOURCE`] must be the program's; otherwise the ROM writes
/// [`mailbox::NO_TEXT`] and spins (no code for an empty text).
fn check_text_source(a: &mut Asm, exe: &PsExe) {
    let words = exe.text.len().div_ceil(4);
    if words == 0 {
        return;
    }
    let word = |i: usize| {
        let mut w = [0u8; 4];
        let bytes = exe.text.get(4 * i..).unwrap_or_default();
        let n = bytes.len().min(4);
        w[..n].copy_from_slice(&bytes[..n]);
        u32::from_le_bytes(w)
    };
    let (missing, present) = (a.new_label(), a.new_label());
    for i in [0, words - 1] {
        a.li(T0, TEXT_SOURCE + 4 * i as u32);
        a.emit(lw(T1, 0, T0));
        a.li(T2, word(i));
        a.bne(T1, T2, missing); // T1 arrived during li's two instructions
        a.emit(NOP);
    }
    a.j(present);
    a.emit(NOP);
    a.bind(missing);
    a.li(T0, mailbox::NO_TEXT);
    a.emit(sw(T0, mailbox::STATE as i16, ZERO));
    let spin = a.new_label();
    a.bind(spin);
    a.j(spin);
    a.emit(NOP);
    a.bind(present);
}

/// Zeroes `len` bytes from `dst`, byte by byte (BSS needs no alignment).
fn zero_bytes(a: &mut Asm, dst: u32, len: u32) {
    if len == 0 {
        return;
    }
    let top = a.new_label();
    a.li(T1, dst);
    a.li(T2, dst.wrapping_add(len));
    a.bind(top);
    a.emit(addiu(T1, T1, 1));
    a.bne(T1, T2, top);
    a.emit(sb(ZERO, -1, T1));
}

fn reset_code(exe: &PsExe) -> Result<Vec<u32>> {
    let mut a = Asm::new(ROM_BASE);
    a.emit(lui(T0, 0x1F80));
    for (offset, value) in MEMORY_CONTROL {
        a.li(T1, value);
        a.emit(sw(T1, offset as i16, T0));
    }
    // Interrupts masked and acknowledged; they stay off (SR.IEc = 0) until the program enables them.
    a.emit(sw(ZERO, 0x1074, T0));
    a.emit(sw(ZERO, 0x1070, T0));
    a.emit(lui(T0, 0xFFFE));
    a.li(T1, CACHE_CONTROL);
    a.emit(sw(T1, 0x0130, T0));
    a.emit(mtc0(ZERO, COP0_SR));
    a.emit(mtc0(ZERO, COP0_CAUSE));

    let kernel_words = kernel_blob()?.len() as u32;
    copy_words(
        &mut a,
        ROM_BASE + KERNEL_BLOB_OFFSET as u32,
        KERNEL_BLOB_RAM,
        kernel_words,
    );
    for word in [
        mailbox::STATE,
        mailbox::EXCEPTIONS,
        mailbox::LAST_EPC,
        mailbox::LAST_CAUSE,
        mailbox::TTY_LEN,
    ] {
        a.emit(sw(ZERO, word as i16, ZERO));
    }

    // Text first, then BSS: a BSS that overlaps the text wins, as with the BIOS.
    let text_words = exe.text.len().div_ceil(4) as u32;
    check_text_source(&mut a, exe);
    copy_words(&mut a, TEXT_SOURCE, exe.t_addr, text_words);
    zero_bytes(&mut a, exe.b_addr, exe.b_size);

    a.li(SP, exe.initial_sp());
    a.emit(addu(FP, SP, ZERO));
    a.li(GP, exe.gp);
    a.emit(addu(A0, ZERO, ZERO));
    a.emit(addu(A1, ZERO, ZERO));
    a.li(T0, mailbox::HANDED_OVER);
    a.emit(sw(T0, mailbox::STATE as i16, ZERO));
    a.li(T0, exe.pc);
    a.emit(jr(T0));
    a.emit(NOP);
    a.finish()
}

/// Exception vector at 0x80000080, the BIOS function tables' entry points at 0xA0/0xB0/0xC0, and an
/// exception handler that counts the exception, records EPC/CAUSE in the mailbox and returns: past the
/// instruction for `syscall` (which would otherwise repeat forever), to it for anything else.
///
/// The A0 and B0 tables serve the TTY calls (`putc`, `putchar`, `puts`, `write` to stdout, and A0's
/// `printf` with `%s`, `%c` and `%%`: what `psx::println!` passes, formatting in Rust) into the TTY
/// buffer of the mailbox, so that the host can show what a program printed; every other call, and
/// C0's, returns 0.
fn kernel_blob() -> Result<Vec<u32>> {
    let mut a = Asm::new(KERNEL_BLOB_RAM);
    let handler = a.new_label();
    let (table_a0, table_b0) = (a.new_label(), a.new_label());
    a.j(handler);
    a.emit(NOP);
    a.pad_to(0x8000_00A0)?;
    a.j(table_a0);
    a.emit(NOP);
    a.pad_to(0x8000_00B0)?;
    a.j(table_b0);
    a.emit(NOP);
    a.pad_to(0x8000_00C0)?;
    a.emit(jr(RA));
    a.emit(addu(V0, ZERO, ZERO));
    a.pad_to(EXCEPTION_HANDLER_RAM)?;
    a.bind(handler);
    let resume = a.new_label();
    a.emit(mfc0(K0, COP0_EPC));
    a.emit(mfc0(K1, COP0_CAUSE));
    a.emit(sw(K0, mailbox::LAST_EPC as i16, ZERO));
    a.emit(sw(K1, mailbox::LAST_CAUSE as i16, ZERO));
    a.emit(lw(K1, mailbox::EXCEPTIONS as i16, ZERO));
    a.emit(NOP);
    a.emit(addiu(K1, K1, 1));
    a.emit(sw(K1, mailbox::EXCEPTIONS as i16, ZERO));
    a.emit(lw(K1, mailbox::LAST_CAUSE as i16, ZERO));
    a.emit(NOP);
    a.emit(andi(K1, K1, 0x7C)); // ExcCode << 2
    a.emit(addiu(K1, K1, -(8 << 2))); // 8 = syscall
    a.bne(K1, ZERO, resume);
    a.emit(NOP);
    a.emit(addiu(K0, K0, 4));
    a.bind(resume);
    a.emit(jr(K0));
    a.emit(rfe());
    // Past the mailbox (0x200..0x214, zeroed by the reset code after this blob is copied).
    a.pad_to(TTY_CODE_RAM)?;
    tty_calls(&mut a, table_a0, table_b0);
    a.finish()
}

/// Where the TTY calls' code starts.
const TTY_CODE_RAM: u32 = 0x8000_0400;

/// Appends the byte in `reg` to the TTY buffer (counting it even when the buffer is full). Uses T2,
/// T3, T6; the caller's `reg` is none of them.
fn emit_tty_byte(a: &mut Asm, reg: Reg) {
    let full = a.new_label();
    a.emit(lw(T2, mailbox::TTY_LEN as i16, ZERO));
    a.emit(NOP);
    a.emit(sltiu(T3, T2, mailbox::TTY_CAPACITY as i16));
    a.beq(T3, ZERO, full);
    a.emit(addiu(T6, T2, 1));
    a.emit(sb(reg, mailbox::TTY_BUFFER as i16, T2));
    a.bind(full);
    a.emit(sw(T6, mailbox::TTY_LEN as i16, ZERO));
}

/// The A0 and B0 dispatchers and the TTY calls (function number in T1, arguments in A0..A3 and on the
/// caller's stack from 16(SP), as o32 passes them; T0..T6 and V0 are the callee's to use).
fn tty_calls(a: &mut Asm, table_a0: Label, table_b0: Label) {
    let (putchar, puts, write, printf, zero) = (a.new_label(), a.new_label(), a.new_label(), a.new_label(), a.new_label());
    let dispatch = |a: &mut Asm, calls: &[(i16, Label)]| {
        for &(number, target) in calls {
            a.emit(addiu(T0, ZERO, number));
            a.beq(T1, T0, target);
            a.emit(NOP);
        }
        a.j(zero);
        a.emit(NOP);
    };
    a.bind(table_a0);
    dispatch(a, &[(0x09, putchar), (0x3C, putchar), (0x3E, puts), (0x03, write), (0x3F, printf)]);
    a.bind(table_b0);
    dispatch(a, &[(0x3B, putchar), (0x3D, putchar), (0x3F, puts), (0x35, write)]);

    a.bind(zero);
    a.emit(jr(RA));
    a.emit(addu(V0, ZERO, ZERO));

    // putc/putchar(c): returns c.
    a.bind(putchar);
    emit_tty_byte(a, A0);
    a.emit(jr(RA));
    a.emit(addu(V0, A0, ZERO));

    // puts(s): the string up to its NUL.
    a.bind(puts);
    emit_tty_string(a, A0, zero);

    // write(fd, buffer, length): fd 1 (stdout) only; returns the length written.
    a.bind(write);
    let (byte, done) = (a.new_label(), a.new_label());
    a.emit(addiu(T0, ZERO, 1));
    a.bne(A0, T0, zero);
    a.emit(addu(T4, A2, ZERO));
    a.bind(byte);
    a.beq(T4, ZERO, done);
    a.emit(NOP);
    a.emit(lbu(T5, 0, A1));
    a.emit(addiu(A1, A1, 1));
    a.emit(addiu(T4, T4, -1));
    emit_tty_byte(a, T5);
    a.j(byte);
    a.emit(NOP);
    a.bind(done);
    a.emit(jr(RA));
    a.emit(addu(V0, A2, ZERO));

    // printf(format, ...): literal characters, %s, %c and %%; any other conversion takes its argument
    // and shows as written. The arguments after the format go to the caller's home slots 4..15(SP),
    // after which the stacked ones follow: T4 walks them.
    a.bind(printf);
    let (scan, literal, conversion, string, character) =
        (a.new_label(), a.new_label(), a.new_label(), a.new_label(), a.new_label());
    a.emit(sw(A1, 4, SP));
    a.emit(sw(A2, 8, SP));
    a.emit(sw(A3, 12, SP));
    a.emit(addiu(T4, SP, 4));
    a.bind(scan);
    a.emit(lbu(T5, 0, A0));
    a.emit(NOP);
    a.beq(T5, ZERO, zero);
    a.emit(addiu(A0, A0, 1));
    a.emit(addiu(T0, ZERO, i16::from(b'%')));
    a.beq(T5, T0, conversion);
    a.emit(NOP);
    a.bind(literal);
    emit_tty_byte(a, T5);
    a.j(scan);
    a.emit(NOP);
    a.bind(conversion);
    a.emit(lbu(T5, 0, A0));
    a.emit(NOP);
    a.beq(T5, ZERO, zero);
    a.emit(addiu(A0, A0, 1));
    a.beq(T5, T0, literal); // "%%"
    a.emit(addiu(T0, ZERO, i16::from(b's')));
    a.beq(T5, T0, string);
    a.emit(addiu(T0, ZERO, i16::from(b'c')));
    a.beq(T5, T0, character);
    a.emit(addiu(T4, T4, 4)); // delay slot: any other conversion (and %c) takes an argument
    a.emit(addiu(T0, ZERO, i16::from(b'%')));
    emit_tty_byte(a, T0);
    a.j(literal);
    a.emit(NOP);
    a.bind(character);
    a.emit(lw(T5, -4, T4));
    a.j(literal);
    a.emit(NOP);
    a.bind(string);
    a.emit(lw(T0, 0, T4));
    a.emit(addiu(T4, T4, 4));
    emit_tty_string(a, T0, scan);
}

/// Appends the NUL-terminated string at `pointer` (advanced past it; T5 holds each byte), then jumps
/// to `then`.
fn emit_tty_string(a: &mut Asm, pointer: Reg, then: Label) {
    let next = a.new_label();
    a.bind(next);
    a.emit(lbu(T5, 0, pointer));
    a.emit(NOP);
    a.beq(T5, ZERO, then);
    a.emit(addiu(pointer, pointer, 1));
    emit_tty_byte(a, T5);
    a.j(next);
    a.emit(NOP);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exe(text_len: usize) -> PsExe {
        PsExe {
            pc: 0x8001_0000,
            gp: 0x8001_8000,
            t_addr: 0x8001_0000,
            b_addr: 0x8002_0000,
            b_size: 0x10,
            s_addr: 0,
            s_size: 0,
            text: (0..text_len).map(|i| (i * 7) as u8).collect(),
        }
    }

    fn word_at(rom: &[u8], offset: usize) -> u32 {
        u32::from_le_bytes(rom[offset..offset + 4].try_into().unwrap())
    }

    #[test]
    fn layout_keeps_the_patch_word_free_and_carries_no_text() {
        let program = exe(0x1800);
        let rom = build(&program).unwrap();
        assert_eq!(rom.len(), ROM_SIZE);
        // The reset vector starts with `lui t0, 0x1F80` (memory control base).
        assert_eq!(word_at(&rom, 0), 0x3C08_1F80);
        // Mednafen's patch word and everything past the kernel blob are zero: the text is not here.
        assert_eq!(word_at(&rom, MEDNAFEN_PATCH_OFFSET), 0);
        let kernel_end = KERNEL_BLOB_OFFSET + 4 * kernel_blob().unwrap().len();
        assert!(rom[kernel_end..].iter().all(|&b| b == 0));
        // Kernel blob: exception vector jumps to the handler at 0x100; the 0xA0 and 0xB0 entries jump
        // to the TTY calls' dispatchers past the mailbox; the 0xC0 stub returns 0.
        assert_eq!(word_at(&rom, KERNEL_BLOB_OFFSET), 0x0800_0040);
        for entry in [0x20, 0x30] {
            let jump = word_at(&rom, KERNEL_BLOB_OFFSET + entry);
            assert_eq!(jump >> 26, 2, "j");
            assert!((jump & 0x03FF_FFFF) << 2 >= TTY_CODE_RAM & 0x0FFF_FFFF);
        }
        assert_eq!(word_at(&rom, KERNEL_BLOB_OFFSET + 0x40), jr(RA));
        assert_eq!(word_at(&rom, KERNEL_BLOB_OFFSET + 0x44), addu(V0, ZERO, ZERO));
        // The mailbox lies between the handler and the TTY code: it is zeroed after the copy.
        assert!(EXCEPTION_HANDLER_RAM + 4 * 32 <= 0x8000_0000 + mailbox::STATE as u32);
        assert!(0x8000_0000 + (mailbox::TTY_LEN as u32) + 4 <= TTY_CODE_RAM);
    }

    /// Words of `code` that load `value` into `reg` (`li`).
    fn loads(code: &[u32], reg: Reg, value: u32) -> bool {
        code.windows(2).any(|w| w == [lui(reg, (value >> 16) as u16), ori(reg, reg, value as u16)])
    }

    #[test]
    fn reset_code_checks_the_text_at_its_source_then_copies_all_of_it() {
        let program = exe(0x1800);
        let code = reset_code(&program).unwrap();
        // The first and last text words are compared with the program's, at the text's source.
        let last = u32::from_le_bytes(program.text[0x17FC..0x1800].try_into().unwrap());
        let first = u32::from_le_bytes(program.text[..4].try_into().unwrap());
        for (address, value) in [(TEXT_SOURCE, first), (TEXT_SOURCE + 0x17FC, last)] {
            assert!(loads(&code, T0, address) && loads(&code, T2, value), "{address:#x}: {value:#x}");
        }
        assert!(loads(&code, T0, mailbox::NO_TEXT), "a missing text is reported");
        // The copy: from the source to t_addr, up to t_addr + the text.
        assert!(loads(&code, T0, TEXT_SOURCE) && loads(&code, T1, program.t_addr) && loads(&code, T2, program.t_addr + 0x1800));
    }

    #[test]
    fn a_program_filling_ram_above_the_kernel_area_boots() {
        // 1,966,080 bytes of text from 0x80010000: RAM's 2 MiB but the kernel area, four times what a
        // ROM that carried the EXE could hold (491,520 bytes).
        let mut program = exe(psexe::RAM_SIZE as usize - psexe::KERNEL_AREA as usize);
        program.b_size = 0;
        let bytes = program.to_file_bytes();
        let parsed = PsExe::parse(&bytes, "large.exe").unwrap();
        assert_eq!(build(&parsed).unwrap().len(), ROM_SIZE);
        let code = reset_code(&parsed).unwrap();
        assert!(loads(&code, T2, 0x8020_0000), "the copy ends at the end of RAM");
        // One word more does not fit in RAM: refused before a ROM is built.
        let mut bigger = bytes.clone();
        bigger[0x1C..0x20].copy_from_slice(&(parsed.text.len() as u32 + 4).to_le_bytes());
        bigger.extend_from_slice(&[0; 4]);
        assert!(PsExe::parse(&bigger, "larger.exe").unwrap_err().to_string().contains("must lie within RAM"));
    }

    #[test]
    fn reset_code_ends_with_the_jump_to_the_entry_point() {
        let mut program = exe(0x800);
        program.pc = 0x8001_0234;
        let words = reset_code(&program).unwrap();
        let n = words.len();
        assert_eq!(
            &words[n - 4..],
            &[lui(T0, 0x8001), ori(T0, T0, 0x0234), jr(T0), NOP]
        );
        // The mailbox is written just before: "PXBR" to 0x200.
        assert_eq!(words[n - 5], sw(T0, 0x200, ZERO));
        // Memory control: RAM_SIZE gets 0xB88.
        assert!(words
            .windows(3)
            .any(|w| w == [lui(T1, 0), ori(T1, T1, 0x0B88), sw(T1, 0x1060, T0)]));
    }

    #[test]
    fn firmware_is_written_under_every_region_name() {
        let dir = std::env::temp_dir().join(format!("psxanim-bootrom-test-{}", std::process::id()));
        let rom = build(&exe(0x800)).unwrap();
        write_firmware(&dir, &rom).unwrap();
        for name in FIRMWARE_NAMES {
            assert_eq!(std::fs::read(dir.join(name)).unwrap(), rom);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
