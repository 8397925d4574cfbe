//! The verification record: what a PSX program leaves in RAM for the host to check.
//!
//! One `#[repr(C)]` layout, used by the programs in `examples/` (which fill it) and by the xtask (which
//! finds it in a RAM dump taken by any emulator backend and reads it back). The program writes the magic
//! words at start-up; the reader scans RAM for them, so the record can live anywhere (`.bss` is fine).

pub mod digest;

/// First magic word, "PXAN" little-endian.
pub const MAGIC0: u32 = u32::from_le_bytes(*b"PXAN");
/// Second magic word, "VREC" little-endian.
pub const MAGIC1: u32 = u32::from_le_bytes(*b"VREC");
/// Layout version; bumped whenever a field moves.
pub const VERSION: u32 = 5;
/// Number of result words a program can report.
pub const RESULT_WORDS: usize = 8192;
/// Number of cycle-count slots (root counter 2 readings; the unit is documented by each program).
pub const CYCLE_SLOTS: usize = 80;

/// `Record::error` of the panic handler ("PANC", `console::panic`).
pub const ERROR_PANIC_CODE: u32 = u32::from_le_bytes(*b"PANC");

/// The panic handler's `Record::error_detail`: the line (low 16 bits, at most 0xFFFF) and a tag of
/// the source file (high 16 bits, [`source_file_tag`]) so that the host can name the file.
pub const fn panic_detail(file: &str, line: u32) -> u32 {
    (if line > 0xFFFF { 0xFFFF } else { line }) | (source_file_tag(file) as u32) << 16
}

/// A 16-bit FNV-1a hash of a source path from its last `src/` on (`tables/mod.rs`), which is the
/// same whatever folder the crate was built from.
pub const fn source_file_tag(path: &str) -> u16 {
    let bytes = path.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i + 4 <= bytes.len() {
        if bytes[i] == b's' && bytes[i + 1] == b'r' && bytes[i + 2] == b'c' && (bytes[i + 3] == b'/' || bytes[i + 3] == b'\\') {
            start = i + 4;
        }
        i += 1;
    }
    let mut hash: u32 = 0x811C_9DC5;
    let mut k = start;
    while k < bytes.len() {
        let b = if bytes[k] == b'\\' { b'/' } else { bytes[k] };
        hash = (hash ^ b as u32).wrapping_mul(0x0100_0193);
        k += 1;
    }
    ((hash >> 16) ^ (hash & 0xFFFF)) as u16
}

/// Program state, in `Record::status`.
pub mod status {
    /// Start-up has not finished.
    pub const BOOTING: u32 = 0;
    /// The main loop runs; results may still change.
    pub const RUNNING: u32 = 1;
    /// Every result has been written; the main loop keeps drawing.
    pub const DONE: u32 = 2;
    /// The program stopped on an error (`Record::error`, `Record::error_detail`).
    pub const FAILED: u32 = 3;
}

/// The record itself. Field order and sizes are the contract with the host: change `VERSION` with them.
#[derive(bytemuck::Pod, bytemuck::Zeroable, Clone, Copy)]
#[repr(C)]
pub struct Record {
    pub magic: [u32; 2],
    pub version: u32,
    /// Which program wrote it (a four-character code such as `b"HELO"`).
    pub program: u32,
    /// Frames completed by the main loop (vsyncs seen by the program).
    pub frames: u32,
    pub status: u32,
    /// Program-defined error code of the last error (0 = none) and a detail word (an offset, a bone...).
    pub error: u32,
    pub error_detail: u32,
    /// Number of valid words in `results`.
    pub result_len: u32,
    /// Number of valid slots in `cycles`.
    pub cycle_len: u32,
    pub cycles: [u32; CYCLE_SLOTS],
    pub results: [u32; RESULT_WORDS],
}

/// Size of the record in bytes.
pub const RECORD_BYTES: usize = core::mem::size_of::<Record>();
/// Byte offset of `results` in the record.
pub const RESULTS_OFFSET: usize = 40 + 4 * CYCLE_SLOTS;

impl Record {
    /// An all-zero record, for a `static mut` in `.bss`.
    pub const ZERO: Record = Record {
        magic: [0; 2],
        version: 0,
        program: 0,
        frames: 0,
        status: 0,
        error: 0,
        error_detail: 0,
        result_len: 0,
        cycle_len: 0,
        cycles: [0; CYCLE_SLOTS],
        results: [0; RESULT_WORDS],
    };

    /// Marks the record as started by `program`. Call once at start-up.
    pub fn begin(&mut self, program: [u8; 4]) {
        self.version = VERSION;
        self.program = u32::from_le_bytes(program);
        self.status = status::RUNNING;
        self.magic = [MAGIC0, MAGIC1];
    }

    /// Appends a result word; silently ignores words past the capacity (the host sees `result_len`).
    pub fn push(&mut self, word: u32) {
        let i = self.result_len as usize;
        if i < RESULT_WORDS {
            self.results[i] = word;
            self.result_len += 1;
        }
    }

    /// Stores a cycle reading in slot `slot` (ignored past the capacity).
    pub fn set_cycles(&mut self, slot: usize, value: u32) {
        if slot < CYCLE_SLOTS {
            self.cycles[slot] = value;
            if self.cycle_len < slot as u32 + 1 {
                self.cycle_len = slot as u32 + 1;
            }
        }
    }

    /// Records an error and marks the program failed.
    pub fn fail(&mut self, code: u32, detail: u32) {
        self.error = code;
        self.error_detail = detail;
        self.status = status::FAILED;
    }
}

/// Why a RAM dump holds no usable record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindError {
    /// The magic words are nowhere in the dump: the program never started, or the dump is not RAM.
    NoMagic,
    /// The record was found at this RAM offset with another layout version.
    Version { offset: usize, found: u32 },
    /// The record starts at this offset but runs past the end of the dump.
    Truncated { offset: usize },
    /// `result_len` or `cycle_len` is larger than the capacity.
    BadLength { offset: usize },
}

/// A record read back from a little-endian RAM dump (host side; no copy).
#[derive(Debug, Clone, Copy)]
pub struct RecordView<'a> {
    bytes: &'a [u8],
    /// Offset of the record in the dump (the physical RAM address when the dump is main RAM).
    pub offset: usize,
}

impl<'a> RecordView<'a> {
    /// Finds the record in `ram` (scans 4-byte aligned offsets for the two magic words).
    pub fn find(ram: &'a [u8]) -> Result<Self, FindError> {
        let mut first_bad = None;
        let mut at = 0;
        while at + 8 <= ram.len() {
            if word(ram, at) == MAGIC0 && word(ram, at + 4) == MAGIC1 {
                match Self::at(ram, at) {
                    Ok(view) => return Ok(view),
                    Err(e) => {
                        first_bad.get_or_insert(e);
                    }
                }
            }
            at += 4;
        }
        Err(first_bad.unwrap_or(FindError::NoMagic))
    }

    fn at(ram: &'a [u8], offset: usize) -> Result<Self, FindError> {
        if ram.len() < offset + 12 {
            return Err(FindError::Truncated { offset });
        }
        let found = word(ram, offset + 8);
        if found != VERSION {
            return Err(FindError::Version { offset, found });
        }
        let bytes = ram.get(offset..offset + RECORD_BYTES).ok_or(FindError::Truncated { offset })?;
        let view = RecordView { bytes, offset };
        if view.result_len() as usize > RESULT_WORDS || view.cycle_len() as usize > CYCLE_SLOTS {
            return Err(FindError::BadLength { offset });
        }
        Ok(view)
    }

    fn field(&self, index: usize) -> u32 {
        word(self.bytes, index * 4)
    }
    pub fn version(&self) -> u32 {
        self.field(2)
    }
    pub fn program(&self) -> [u8; 4] {
        self.field(3).to_le_bytes()
    }
    pub fn frames(&self) -> u32 {
        self.field(4)
    }
    pub fn status(&self) -> u32 {
        self.field(5)
    }
    pub fn error(&self) -> u32 {
        self.field(6)
    }
    pub fn error_detail(&self) -> u32 {
        self.field(7)
    }
    pub fn result_len(&self) -> u32 {
        self.field(8)
    }
    pub fn cycle_len(&self) -> u32 {
        self.field(9)
    }
    /// Cycle slot `i` (0 past `cycle_len`).
    pub fn cycles(&self, i: usize) -> u32 {
        if i < self.cycle_len() as usize {
            self.field(10 + i)
        } else {
            0
        }
    }
    /// Result word `i` (0 past `result_len`).
    pub fn result(&self, i: usize) -> u32 {
        if i < self.result_len() as usize {
            word(self.bytes, RESULTS_OFFSET + 4 * i)
        } else {
            0
        }
    }
    /// The valid result words.
    pub fn results(&self) -> impl Iterator<Item = u32> + 'a {
        let bytes = self.bytes;
        (0..self.result_len() as usize).map(move |i| word(bytes, RESULTS_OFFSET + 4 * i))
    }
}

fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn as_bytes(r: &Record) -> &[u8] {
        bytemuck::bytes_of(r)
    }

    #[test]
    fn a_panic_detail_holds_the_line_and_a_tag_of_the_path_from_src_on() {
        let tag = source_file_tag("tables/mod.rs");
        assert_eq!(source_file_tag("/work/main/runtime/src/tables/mod.rs"), tag);
        assert_eq!(source_file_tag("C:\\psx\\runtime\\src\\tables\\mod.rs"), tag);
        assert_ne!(source_file_tag("runtime/src/tables/baked.rs"), tag);
        assert_eq!(panic_detail("runtime/src/tables/mod.rs", 216), 216 | (tag as u32) << 16);
        assert_eq!(panic_detail("a/src/b.rs", 70_000) & 0xFFFF, 0xFFFF);
    }

    #[test]
    fn layout_offsets_match_the_reader() {
        let r = Record::ZERO;
        let base = &r as *const Record as usize;
        assert_eq!(&r.results as *const _ as usize - base, RESULTS_OFFSET);
        assert_eq!(RECORD_BYTES, RESULTS_OFFSET + 4 * RESULT_WORDS);
    }

    #[test]
    fn found_anywhere_in_a_dump_and_read_back() {
        extern crate std;
        let mut r = std::boxed::Box::new(Record::ZERO);
        r.begin(*b"TEST");
        r.frames = 120;
        r.push(0xDEADBEEF);
        r.push(7);
        r.set_cycles(3, 999);
        let mut ram = std::vec![0u8; 4096];
        ram.extend_from_slice(as_bytes(&r));
        ram.extend_from_slice(&[0; 64]);
        let v = RecordView::find(&ram).unwrap();
        assert_eq!(v.offset, 4096);
        assert_eq!(&v.program(), b"TEST");
        assert_eq!(v.frames(), 120);
        assert_eq!(v.status(), status::RUNNING);
        assert_eq!(v.results().collect::<std::vec::Vec<_>>(), [0xDEADBEEF, 7]);
        assert_eq!(v.cycles(3), 999);
        assert_eq!(v.cycle_len(), 4);
    }

    #[test]
    fn missing_wrong_version_and_truncated_are_errors() {
        extern crate std;
        assert_eq!(RecordView::find(&[0u8; 1024]).unwrap_err(), FindError::NoMagic);
        let mut r = std::boxed::Box::new(Record::ZERO);
        r.begin(*b"TEST");
        r.version = 99;
        assert_eq!(
            RecordView::find(as_bytes(&r)).unwrap_err(),
            FindError::Version { offset: 0, found: 99 }
        );
        r.version = VERSION;
        assert_eq!(
            RecordView::find(&as_bytes(&r)[..100]).unwrap_err(),
            FindError::Truncated { offset: 0 }
        );
        r.result_len = RESULT_WORDS as u32 + 1;
        assert_eq!(RecordView::find(as_bytes(&r)).unwrap_err(), FindError::BadLength { offset: 0 });
    }
}
