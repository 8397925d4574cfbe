//! The R3000A's load delay, checked on the linked program: a value loaded into a general register
//! (lb, lbu, lh, lhu, lw, lwl, lwr, mfc0, mfc2, cfc2) is not there yet for the next instruction, which
//! reads the register's old value. The compiler and the hand-scheduled asm must never depend on it.
//!
//! "Next" follows execution: after a load in a branch delay slot it is the instruction at the branch
//! target (and, for a conditional branch, the one after the slot). The pinned nightly's LLVM got that
//! case wrong (a load moved into a delay slot whose target reads it at once, llvm-project#185427);
//! the PSX builds turn its delay slot filler off, and this check keeps any such code out of an EXE.
//!
//! The GTE has its own: a GTE command must not start within two instructions of the `mtc2`/`lwc2`
//! that writes a data register it reads, nor of a `ctc2` (every command reads control registers).
//! The emulators do not model that delay, so only a check like this one sees it break.

/// One place where the next instruction reads a register the previous one is still loading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hazard {
    pub load_at: u32,
    pub reader_at: u32,
    pub register: u32,
}

const fn rs(w: u32) -> u32 {
    (w >> 21) & 31
}
const fn rt(w: u32) -> u32 {
    (w >> 16) & 31
}

/// The general register an instruction loads with a delay, if it does.
fn loaded_register(w: u32) -> Option<u32> {
    match w >> 26 {
        0x20..=0x26 => Some(rt(w)),
        // mfc0 / mfc2, cfc2
        0x10 if rs(w) == 0 => Some(rt(w)),
        0x12 if rs(w) == 0 || rs(w) == 2 => Some(rt(w)),
        _ => None,
    }
    .filter(|&r| r != 0)
}

/// The general registers an instruction reads (unknown encodings: both rs and rt, to be safe).
fn reads(w: u32) -> [Option<u32>; 2] {
    let (s, t) = (Some(rs(w)), Some(rt(w)));
    match w >> 26 {
        0 => match w & 63 {
            0x00 | 0x02 | 0x03 => [t, None],
            0x08 | 0x09 | 0x11 | 0x13 => [s, None],
            0x0C | 0x0D | 0x10 | 0x12 => [None, None],
            _ => [s, t],
        },
        0x01 | 0x06 | 0x07 | 0x08..=0x0E | 0x20 | 0x21 | 0x23..=0x25 | 0x32 | 0x3A => [s, None],
        0x02 | 0x03 | 0x0F => [None, None],
        // mtc, ctc read rt; mfc, cfc, branches on the coprocessor flag and commands read none.
        0x10 | 0x12 => [if rs(w) == 4 || rs(w) == 6 { t } else { None }, None],
        _ => [s, t],
    }
}

/// Where control goes after the delay slot of a branch or jump: its target (none for a jump through
/// a register) and whether it may also fall through. `None` for any other instruction.
fn branch(w: u32, at: u32) -> Option<(Option<u32>, bool)> {
    let relative = at.wrapping_add(4).wrapping_add(((w & 0xFFFF) as i16 as i32 as u32) << 2);
    match w >> 26 {
        0 if matches!(w & 63, 0x08 | 0x09) => Some((None, false)),
        0x01 => Some((Some(relative), true)),
        0x02 | 0x03 => Some((Some((at.wrapping_add(4) & 0xF000_0000) | (w & 0x03FF_FFFF) << 2), false)),
        // `b` is `beq $0, $0`: always taken.
        0x04 => Some((Some(relative), rs(w) != 0 || rt(w) != 0)),
        0x05..=0x07 => Some((Some(relative), true)),
        0x10..=0x13 if rs(w) == 8 => Some((Some(relative), true)),
        _ => None,
    }
}

/// Every load-delay hazard in `text`, the words of a program's code starting at address `base`. A
/// load in the delay slot of a jump through a register is reported too (its target is not known).
pub fn load_delay_hazards(text: &[u32], base: u32) -> Vec<Hazard> {
    let word_at = |a: u32| a.checked_sub(base).map(|o| o / 4).and_then(|i| text.get(i as usize)).copied();
    let mut found = Vec::new();
    for (i, &w) in text.iter().enumerate() {
        let Some(register) = loaded_register(w) else { continue };
        let load_at = base + 4 * i as u32;
        let after_slot = i.checked_sub(1).and_then(|p| branch(text[p], load_at - 4));
        let next: Vec<u32> = match after_slot {
            Some((None, _)) => {
                found.push(Hazard { load_at, reader_at: load_at, register });
                continue;
            }
            Some((Some(target), falls_through)) => {
                let mut n = vec![target];
                if falls_through {
                    n.push(load_at + 4);
                }
                n
            }
            None => vec![load_at + 4],
        };
        for reader_at in next {
            let Some(reader) = word_at(reader_at) else { continue };
            // lwl and lwr into one register merge by design.
            let merge = matches!(w >> 26, 0x22 | 0x26) && matches!(reader >> 26, 0x22 | 0x26) && rt(reader) == register;
            if !merge && reads(reader).contains(&Some(register)) {
                found.push(Hazard { load_at, reader_at, register });
            }
        }
    }
    found
}

/// A GTE command that starts within two instructions of a write to a register it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GteHazard {
    pub write_at: u32,
    pub command_at: u32,
    /// The data register written (32 + n for control register n).
    pub register: u32,
}

/// The GTE register an instruction writes: data registers 0..31 (a write to SXYP also moves
/// SXY0..2, counted as SXY0), control registers as 32 + n.
fn gte_written(w: u32) -> Option<u32> {
    match (w >> 26, rs(w)) {
        (0x12, 4) => Some((w >> 11) & 31),
        (0x12, 6) => Some(32 + ((w >> 11) & 31)),
        (0x32, _) => Some(rt(w)),
        _ => None,
    }
}

/// Whether `w` is a GTE command that reads register `r` (as numbered by [`gte_written`]): every
/// command reads control registers; the data registers of the commands the runtime uses are known,
/// any other command is taken to read them all.
fn command_reads(w: u32, r: u32) -> bool {
    if w >> 26 != 0x12 || w & (1 << 25) == 0 {
        return false;
    }
    let r = if r == 15 { 14 } else { r };
    let data: &[u32] = match w & 0x3F {
        0x01 => &[0, 1],
        0x30 => &[0, 1, 2, 3, 4, 5],
        0x06 => &[12, 13, 14],
        0x2D => &[17, 18, 19],
        0x2E => &[16, 17, 18, 19],
        0x0C | 0x28 => &[9, 10, 11],
        0x12 => match (w >> 15) & 3 {
            0 => &[0, 1],
            1 => &[2, 3],
            2 => &[4, 5],
            _ => &[9, 10, 11],
        },
        _ => return true,
    };
    r >= 32 || data.contains(&r)
}

/// Where execution goes after the instruction at `at`: the next word, or for a delay slot the
/// branch's target and (if it may fall through) the word after the slot. A jump through a register
/// has no known successor.
fn successors(text: &[u32], base: u32, at: u32) -> Vec<u32> {
    let index = |a: u32| a.checked_sub(base).map(|o| (o / 4) as usize).filter(|&i| i < text.len());
    let before = at.checked_sub(4).and_then(index).and_then(|i| branch(text[i], at - 4));
    match before {
        Some((Some(target), true)) => vec![target, at + 4],
        Some((Some(target), false)) => vec![target],
        Some((None, _)) => vec![],
        None => vec![at + 4],
    }
}

/// Every GTE command in `text` (code at `base`) that starts within two instructions, in execution
/// order, of a write to a register it reads.
pub fn gte_hazards(text: &[u32], base: u32) -> Vec<GteHazard> {
    let word_at = |a: u32| a.checked_sub(base).map(|o| (o / 4) as usize).and_then(|i| text.get(i)).copied();
    let mut found = Vec::new();
    for (i, &w) in text.iter().enumerate() {
        let Some(register) = gte_written(w) else { continue };
        let write_at = base + 4 * i as u32;
        let first = successors(text, base, write_at);
        let second: Vec<u32> = first.iter().flat_map(|&a| successors(text, base, a)).collect();
        for command_at in first.into_iter().chain(second) {
            if word_at(command_at).is_some_and(|c| command_reads(c, register)) && !found.contains(&GteHazard { write_at, command_at, register }) {
                found.push(GteHazard { write_at, command_at, register });
            }
        }
    }
    found
}

/// The hazards of a linked program's code (`__text_start` .. `__text_end`), each named by the symbol
/// it is in: an empty list, or a message for the build to fail with.
pub fn check(elf: &crate::elf::Elf) -> anyhow::Result<()> {
    check_except(elf, |_| false)
}

/// [`check`], except that hazards in the functions `theirs` accepts (a dependency's code, which this
/// project cannot fix) are printed as warnings naming the place instead of failing the build.
pub fn check_except(elf: &crate::elf::Elf, theirs: impl Fn(&str) -> bool) -> anyhow::Result<()> {
    use anyhow::Context;
    let (start, end) = (elf.symbol("__text_start"), elf.symbol("__text_end"));
    let (start, end) = start.zip(end).context("the ELF has no __text_start / __text_end (linker/psexe.ld defines them)")?;
    let segment = elf
        .segments
        .iter()
        .find(|s| s.vaddr <= start && end <= s.vaddr + s.data.len() as u32)
        .context("no loadable segment holds the text")?;
    let bytes = &segment.data[(start - segment.vaddr) as usize..(end - segment.vaddr) as usize];
    let words: Vec<u32> = bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let symbol_of = |a: u32| {
        elf.symbols.iter().filter(|(n, v)| *v <= a && !n.is_empty() && !n.starts_with('$')).max_by_key(|(_, v)| *v).map_or("?", |(n, _)| n.as_str())
    };
    let mut list: Vec<(u32, String)> = load_delay_hazards(&words, start)
        .iter()
        .map(|h| (h.load_at, format!("  {:#010x} loads ${}, read at {:#010x} (in {}): the load delay", h.load_at, h.register, h.reader_at, symbol_of(h.load_at))))
        .collect();
    list.extend(gte_hazards(&words, start).iter().map(|h| {
        let register = if h.register < 32 { format!("data register {}", h.register) } else { format!("control register {}", h.register - 32) };
        (h.write_at, format!("  {:#010x} writes GTE {register}, a command reads it at {:#010x} (in {}): two instructions are needed", h.write_at, h.command_at, symbol_of(h.write_at)))
    }));
    let (foreign, list): (Vec<_>, Vec<_>) = list.into_iter().partition(|(at, _)| theirs(symbol_of(*at)));
    for (_, line) in &foreign {
        println!("warning: a hazard in a dependency's code (not fixable here):\n{line}");
    }
    let list: Vec<String> = list.into_iter().map(|(_, line)| line).collect();
    if list.is_empty() {
        return Ok(());
    }
    let shown = list.len().min(12);
    anyhow::bail!(
        "{} hazard(s) in the program{}:\n{}",
        list.len(),
        if list.len() > shown { ", the first 12" } else { "" },
        list[..shown].join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: u32 = 0x8001_0000;
    const NOP: u32 = 0;

    fn lw(rt: u32, base: u32, offset: u16) -> u32 {
        0x23 << 26 | base << 21 | rt << 16 | offset as u32
    }
    fn addu(rd: u32, rs: u32, rt: u32) -> u32 {
        rs << 21 | rt << 16 | rd << 11 | 0x21
    }
    fn j(target: u32) -> u32 {
        0x02 << 26 | (target >> 2) & 0x03FF_FFFF
    }
    fn beq(rs: u32, rt: u32, words_ahead: i16) -> u32 {
        0x04 << 26 | rs << 21 | rt << 16 | (words_ahead as u16 as u32)
    }

    #[test]
    fn a_load_in_a_jumps_delay_slot_read_at_the_target_is_found() {
        // The pinned nightly's miscompile: `j L; lw $21, 0($17)` ... `L: move $4, $21`.
        let text = [j(BASE + 16), lw(21, 17, 0), NOP, NOP, addu(4, 21, 0), NOP];
        assert_eq!(load_delay_hazards(&text, BASE), [Hazard { load_at: BASE + 4, reader_at: BASE + 16, register: 21 }]);
        // With the target reading something else, or a nop in the slot, there is none.
        let fine = [j(BASE + 16), lw(21, 17, 0), NOP, NOP, addu(4, 5, 0), addu(4, 21, 0)];
        assert_eq!(load_delay_hazards(&fine, BASE), []);
    }

    #[test]
    fn straight_line_code_conditional_branches_and_coprocessor_reads() {
        let text = [lw(2, 4, 0), addu(3, 2, 1)];
        assert_eq!(load_delay_hazards(&text, BASE), [Hazard { load_at: BASE, reader_at: BASE + 4, register: 2 }]);
        assert_eq!(load_delay_hazards(&[lw(2, 4, 0), NOP, addu(3, 2, 1)], BASE), []);
        // A conditional branch: both the target and the instruction after the slot follow the load.
        let text = [beq(5, 6, 2), lw(7, 4, 0), addu(1, 7, 0), addu(1, 7, 0)];
        assert_eq!(
            load_delay_hazards(&text, BASE),
            [Hazard { load_at: BASE + 4, reader_at: BASE + 12, register: 7 }, Hazard { load_at: BASE + 4, reader_at: BASE + 8, register: 7 }]
        );
        // `b` (beq $0, $0) never falls through.
        let text = [beq(0, 0, 2), lw(7, 4, 0), addu(1, 7, 0), NOP];
        assert_eq!(load_delay_hazards(&text, BASE), []);
        // mfc2 $8, MAC0 then bltz $8: the sign of the old value.
        let mfc2 = 0x12 << 26 | 8 << 16 | 24 << 11;
        let bltz = 0x01 << 26 | 8 << 21 | 3;
        assert_eq!(load_delay_hazards(&[mfc2, bltz], BASE), [Hazard { load_at: BASE, reader_at: BASE + 4, register: 8 }]);
        // lwl and lwr into one register merge; loading $0 is no load.
        let (lwl, lwr) = (0x22 << 26 | 4 << 21 | 2 << 16 | 3, 0x26 << 26 | 4 << 21 | 2 << 16);
        assert_eq!(load_delay_hazards(&[lwl, lwr, NOP], BASE), []);
        assert_eq!(load_delay_hazards(&[lw(0, 4, 0), addu(1, 0, 0)], BASE), []);
    }

    #[test]
    fn a_gte_command_two_instructions_after_its_input_is_clean_one_is_not() {
        let mtc2 = |gpr: u32, reg: u32| 0x12 << 26 | 4 << 21 | gpr << 16 | reg << 11;
        let lwc2 = |reg: u32| 0x32 << 26 | 9 << 21 | reg << 16;
        let nclip = 0x12 << 26 | 1 << 25 | 0x0014_0006;
        let avsz3 = 0x12 << 26 | 1 << 25 | 0x0015_802D;
        // SXY2 written, NCLIP after one instruction: too soon; after two: fine.
        assert_eq!(gte_hazards(&[mtc2(8, 14), NOP, nclip], BASE), [GteHazard { write_at: BASE, command_at: BASE + 8, register: 14 }]);
        assert_eq!(gte_hazards(&[mtc2(8, 14), NOP, NOP, nclip], BASE), []);
        // A write NCLIP does not read (SZ3) may come right before it; AVSZ3 does read it.
        assert_eq!(gte_hazards(&[lwc2(19), nclip], BASE), []);
        assert_eq!(gte_hazards(&[lwc2(19), avsz3], BASE), [GteHazard { write_at: BASE, command_at: BASE + 4, register: 19 }]);
        // Through a branch: the write in a delay slot, the command at the target.
        assert_eq!(
            gte_hazards(&[j(BASE + 12), lwc2(15), NOP, nclip], BASE),
            [GteHazard { write_at: BASE + 4, command_at: BASE + 12, register: 15 }]
        );
        // Every command reads the control registers.
        let ctc2 = 0x12 << 26 | 6 << 21 | 8 << 16 | 26 << 11;
        assert_eq!(gte_hazards(&[ctc2, NOP, NOP, nclip], BASE), []);
        assert_eq!(gte_hazards(&[ctc2, nclip], BASE), [GteHazard { write_at: BASE, command_at: BASE + 4, register: 32 + 26 }]);
    }

    #[test]
    fn a_load_in_the_slot_of_a_register_jump_is_reported() {
        let jr_ra = 31 << 21 | 0x08;
        assert_eq!(load_delay_hazards(&[jr_ra, lw(2, 29, 4)], BASE), [Hazard { load_at: BASE + 4, reader_at: BASE + 4, register: 2 }]);
    }
}
