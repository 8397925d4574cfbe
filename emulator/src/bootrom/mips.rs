//! A tiny MIPS I assembler: just the instructions the boot ROM and the test programs need, with labels
//! for branches and jumps. Every branch and jump has a delay slot; the caller writes it explicitly.
use anyhow::{bail, ensure, Result};

/// A general-purpose register number (0..=31).
pub type Reg = u32;

pub const ZERO: Reg = 0;
pub const V0: Reg = 2;
pub const A0: Reg = 4;
pub const A1: Reg = 5;
pub const A2: Reg = 6;
pub const A3: Reg = 7;
pub const T0: Reg = 8;
pub const T1: Reg = 9;
pub const T2: Reg = 10;
pub const T3: Reg = 11;
pub const T4: Reg = 12;
pub const T5: Reg = 13;
pub const T6: Reg = 14;
pub const T9: Reg = 25;
pub const K0: Reg = 26;
pub const K1: Reg = 27;
pub const GP: Reg = 28;
pub const SP: Reg = 29;
pub const FP: Reg = 30;
pub const RA: Reg = 31;

/// Coprocessor 0 registers used here.
pub const COP0_SR: Reg = 12;
pub const COP0_CAUSE: Reg = 13;
pub const COP0_EPC: Reg = 14;

fn r_type(rs: Reg, rt: Reg, rd: Reg, shamt: u32, funct: u32) -> u32 {
    (rs << 21) | (rt << 16) | (rd << 11) | (shamt << 6) | funct
}

fn i_type(op: u32, rs: Reg, rt: Reg, imm: u16) -> u32 {
    (op << 26) | (rs << 21) | (rt << 16) | u32::from(imm)
}

pub const NOP: u32 = 0;
pub fn lui(rt: Reg, imm: u16) -> u32 {
    i_type(0x0F, 0, rt, imm)
}
pub fn ori(rt: Reg, rs: Reg, imm: u16) -> u32 {
    i_type(0x0D, rs, rt, imm)
}
pub fn andi(rt: Reg, rs: Reg, imm: u16) -> u32 {
    i_type(0x0C, rs, rt, imm)
}
pub fn addiu(rt: Reg, rs: Reg, imm: i16) -> u32 {
    i_type(0x09, rs, rt, imm as u16)
}
pub fn lw(rt: Reg, offset: i16, base: Reg) -> u32 {
    i_type(0x23, base, rt, offset as u16)
}
pub fn sw(rt: Reg, offset: i16, base: Reg) -> u32 {
    i_type(0x2B, base, rt, offset as u16)
}
pub fn lbu(rt: Reg, offset: i16, base: Reg) -> u32 {
    i_type(0x24, base, rt, offset as u16)
}
pub fn sltiu(rt: Reg, rs: Reg, imm: i16) -> u32 {
    i_type(0x0B, rs, rt, imm as u16)
}
pub fn sb(rt: Reg, offset: i16, base: Reg) -> u32 {
    i_type(0x28, base, rt, offset as u16)
}
pub fn addu(rd: Reg, rs: Reg, rt: Reg) -> u32 {
    r_type(rs, rt, rd, 0, 0x21)
}
pub fn jr(rs: Reg) -> u32 {
    r_type(rs, 0, 0, 0, 0x08)
}
pub fn jalr(rs: Reg) -> u32 {
    r_type(rs, 0, RA, 0, 0x09)
}
pub fn syscall() -> u32 {
    0x0000_000C
}
pub fn mtc0(rt: Reg, cop0_reg: Reg) -> u32 {
    (0x10 << 26) | (0x04 << 21) | (rt << 16) | (cop0_reg << 11)
}
pub fn mfc0(rt: Reg, cop0_reg: Reg) -> u32 {
    (0x10 << 26) | (rt << 16) | (cop0_reg << 11)
}
/// Return from exception: pops the interrupt-enable / kernel-mode stack of SR.
pub fn rfe() -> u32 {
    0x4200_0010
}

/// A position in the program, bound once with [`Asm::bind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Label(usize);

#[derive(Debug, Clone, Copy)]
enum Fixup {
    /// 16-bit word offset from the delay slot (beq, bne).
    Branch,
    /// 26-bit word index within the 256 MiB region (j).
    Jump,
    /// Upper / lower half of the address (lui / ori pair of `li_label`).
    High,
    Low,
}

/// Machine words for code that will run at `origin`, with forward references resolved by [`Asm::finish`].
pub struct Asm {
    origin: u32,
    words: Vec<u32>,
    labels: Vec<Option<u32>>,
    fixups: Vec<(usize, Label, Fixup)>,
}

impl Asm {
    pub fn new(origin: u32) -> Self {
        Asm {
            origin,
            words: Vec::new(),
            labels: Vec::new(),
            fixups: Vec::new(),
        }
    }

    /// The address the next word will have.
    pub fn here(&self) -> u32 {
        self.origin + 4 * self.words.len() as u32
    }

    pub fn emit(&mut self, word: u32) {
        self.words.push(word);
    }

    /// `lui` + `ori`: a full 32-bit constant in two instructions.
    pub fn li(&mut self, rt: Reg, value: u32) {
        self.emit(lui(rt, (value >> 16) as u16));
        self.emit(ori(rt, rt, value as u16));
    }

    /// `li` of a label's address, which may be bound later.
    pub fn li_label(&mut self, rt: Reg, label: Label) {
        self.fixups.push((self.words.len(), label, Fixup::High));
        self.emit(lui(rt, 0));
        self.fixups.push((self.words.len(), label, Fixup::Low));
        self.emit(ori(rt, rt, 0));
    }

    pub fn new_label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() - 1)
    }

    /// Binds `label` to the current address.
    pub fn bind(&mut self, label: Label) {
        self.labels[label.0] = Some(self.here());
    }

    pub fn beq(&mut self, rs: Reg, rt: Reg, target: Label) {
        self.fixups.push((self.words.len(), target, Fixup::Branch));
        self.emit(i_type(0x04, rs, rt, 0));
    }

    pub fn bne(&mut self, rs: Reg, rt: Reg, target: Label) {
        self.fixups.push((self.words.len(), target, Fixup::Branch));
        self.emit(i_type(0x05, rs, rt, 0));
    }

    pub fn j(&mut self, target: Label) {
        self.fixups.push((self.words.len(), target, Fixup::Jump));
        self.emit(0x02 << 26);
    }

    /// Pads with `nop` up to `address` (which must not be behind the current one).
    pub fn pad_to(&mut self, address: u32) -> Result<()> {
        ensure!(
            address >= self.here() && address & 3 == 0,
            "cannot pad from {:#010x} to {address:#010x}",
            self.here()
        );
        while self.here() < address {
            self.emit(NOP);
        }
        Ok(())
    }

    /// Resolves every label reference and returns the words.
    pub fn finish(mut self) -> Result<Vec<u32>> {
        for &(index, label, kind) in &self.fixups {
            let Some(target) = self.labels[label.0] else {
                bail!("label {} used but never bound", label.0)
            };
            let at = self.origin + 4 * index as u32;
            match kind {
                Fixup::Branch => {
                    let delta = (i64::from(target) - i64::from(at) - 4) / 4;
                    ensure!(
                        (-0x8000..0x8000).contains(&delta),
                        "branch at {at:#010x} cannot reach {target:#010x}"
                    );
                    self.words[index] |= u32::from(delta as i16 as u16);
                }
                Fixup::Jump => {
                    ensure!(
                        (at + 4) & 0xF000_0000 == target & 0xF000_0000,
                        "jump at {at:#010x} cannot reach {target:#010x}"
                    );
                    self.words[index] |= (target >> 2) & 0x03FF_FFFF;
                }
                Fixup::High => self.words[index] |= target >> 16,
                Fixup::Low => self.words[index] |= target & 0xFFFF,
            }
        }
        Ok(self.words)
    }
}

/// Little-endian bytes of `words`, as they sit in memory.
/// Test programs' first steps: GPU reset, 320x240 NTSC with the standard display ranges, display on,
/// the frame buffer filled with `colour` (GP0 0x02 colour word, 0xBBGGRR). Uses T1 and T2.
pub fn show_colour(a: &mut Asm, colour: u32) {
    a.li(T2, 0x1F80_1810);
    for gp1 in [0x0000_0000, 0x0800_0001, 0x06C6_0260, 0x0704_0010, 0x0500_0000, 0x0300_0000] {
        a.li(T1, gp1);
        a.emit(sw(T1, 4, T2));
    }
    for gp0 in [0x0200_0000 | (colour & 0xFF_FFFF), 0x0000_0000, 0x00F0_0140] {
        a.li(T1, gp0);
        a.emit(sw(T1, 0, T2));
    }
}

pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected words worked out from the MIPS I encoding tables; several are familiar prologue/epilogue
    // words (0x27BDFFE8 = addiu sp,sp,-24; 0x8FBF0014 = lw ra,20(sp); 0x03E00008 = jr ra).
    #[test]
    fn encodings_match_known_words() {
        assert_eq!(lui(T0, 0x1F80), 0x3C08_1F80);
        assert_eq!(ori(T1, T1, 0x243F), 0x3529_243F);
        assert_eq!(addiu(SP, SP, -24), 0x27BD_FFE8);
        assert_eq!(lw(RA, 20, SP), 0x8FBF_0014);
        assert_eq!(sw(T1, 0x1000, T0), 0xAD09_1000);
        assert_eq!(sb(ZERO, -1, T1), 0xA120_FFFF);
        assert_eq!(andi(K1, K1, 0x7C), 0x337B_007C);
        assert_eq!(addu(V0, ZERO, ZERO), 0x0000_1021);
        assert_eq!(jr(RA), 0x03E0_0008);
        assert_eq!(jalr(T9), 0x0320_F809);
        assert_eq!(mtc0(ZERO, COP0_SR), 0x4080_6000);
        assert_eq!(mtc0(ZERO, COP0_CAUSE), 0x4080_6800);
        assert_eq!(mfc0(K0, COP0_EPC), 0x401A_7000);
        assert_eq!(rfe(), 0x4200_0010);
        assert_eq!(syscall(), 0x0000_000C);
    }

    #[test]
    fn branches_count_from_the_delay_slot() {
        let mut a = Asm::new(0xBFC0_0000);
        let top = a.new_label();
        let out = a.new_label();
        a.bind(top);
        a.emit(NOP); // 0xBFC00000
        a.bne(T1, T2, top); // 0xBFC00004: back 2 words from the delay slot
        a.emit(NOP);
        a.beq(ZERO, ZERO, out); // 0xBFC0000C: forward 1 word
        a.emit(NOP);
        a.bind(out);
        a.j(top); // 0xBFC00014
        let data = a.new_label();
        a.li_label(T2, data); // 0xBFC00018, 0xBFC0001C
        a.bind(data); // 0xBFC00020
        let words = a.finish().unwrap();
        assert_eq!(words[1], 0x152A_FFFE);
        assert_eq!(words[3], 0x1000_0001);
        assert_eq!(words[5], 0x0BF0_0000);
        assert_eq!(&words[6..8], &[lui(T2, 0xBFC0), ori(T2, T2, 0x0020)]);
    }

    #[test]
    fn unbound_label_and_far_branch_are_errors() {
        let mut a = Asm::new(0x8001_0000);
        let never = a.new_label();
        a.bne(T0, ZERO, never);
        assert!(a.finish().unwrap_err().to_string().contains("never bound"));

        let mut a = Asm::new(0x8001_0000);
        let far = a.new_label();
        a.beq(ZERO, ZERO, far);
        a.pad_to(0x8003_0004).unwrap(); // 0x8000 words past the delay slot: one too far
        a.bind(far);
        assert!(a.finish().unwrap_err().to_string().contains("cannot reach"));
    }
}
