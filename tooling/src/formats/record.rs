//! Reading and writing the fixed-layout records that the format modules declare with binrw, with
//! binrw's errors turned into `ParseError`s that name the offset and what was expected.
//!
//! A record type is declared once (`#[binrw]`, byte order declared on it) and serves both the reader
//! and the writer. What is not a fixed layout stays here as plain byte access: runs whose length
//! comes from the file (`bytes`, after `count` has bounded it) and the bounds check of a count before
//! anything is allocated for it. binrw reports a short read as an I/O error with no position, so the
//! reader reports it at the start of the record, with the record's description.

use super::{ParseError, WriteError};
use binrw::io::{Cursor, NoSeek, Seek, SeekFrom};
use binrw::{BinRead, BinWrite, Endian, VecArgs};
use std::fmt::Display;

/// A bounds-checked reader over a byte slice, reading binrw records and raw runs.
pub struct Reader<'a> {
    io: Cursor<&'a [u8]>,
    endian: Endian,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], endian: Endian) -> Reader<'a> {
        Reader { io: Cursor::new(data), endian }
    }

    /// A reader from `pos` (clamped to the end of the data).
    pub fn at(data: &'a [u8], pos: usize, endian: Endian) -> Reader<'a> {
        let mut io = Cursor::new(data);
        io.set_position(pos.min(data.len()) as u64);
        Reader { io, endian }
    }

    pub fn pos(&self) -> usize {
        self.io.position() as usize
    }

    fn data(&self) -> &'a [u8] {
        self.io.get_ref()
    }

    pub fn remaining(&self) -> usize {
        self.data().len() - self.pos()
    }

    pub fn error(&self, expected: impl Into<String>) -> ParseError {
        ParseError::new(self.pos(), expected)
    }

    /// One record. `what` names it and its layout; it is formatted only when the read fails.
    pub fn read<T>(&mut self, what: impl Display) -> Result<T, ParseError>
    where
        T: for<'b> BinRead<Args<'b> = ()>,
    {
        self.read_with((), what)
    }

    /// `n` raw bytes (names, string bodies, bit streams), checked against what remains.
    pub fn bytes(&mut self, n: usize, what: impl Display) -> Result<&'a [u8], ParseError> {
        if n > self.remaining() {
            return Err(self.error(format!("{what} ({n} bytes), but only {} bytes remain", self.remaining())));
        }
        let at = self.pos();
        self.io.set_position((at + n) as u64);
        Ok(&self.data()[at..at + n])
    }

    /// Checks that `count` elements of `elem_bytes` each fit in what remains, before anything is
    /// allocated for them, and returns the count as `usize`.
    pub fn count(&self, count: u64, elem_bytes: usize, what: impl Display) -> Result<usize, ParseError> {
        match count.checked_mul(elem_bytes as u64) {
            Some(need) if need <= self.remaining() as u64 => Ok(count as usize),
            _ => Err(self.error(format!(
                "{count} {what} of {elem_bytes} bytes each, but only {} bytes remain",
                self.remaining()
            ))),
        }
    }

    /// `count` records, after checking that `count` of at least `min_bytes` each fit in what remains
    /// (binrw reads runs of integers as one block).
    pub fn records<T>(&mut self, count: u64, min_bytes: usize, what: impl Display) -> Result<Vec<T>, ParseError>
    where
        T: for<'b> BinRead<Args<'b> = ()> + 'static,
    {
        let count = self.count(count, min_bytes, &what)?;
        self.read_with(VecArgs { count, inner: () }, format_args!("{count} {what}"))
    }

    fn read_with<T: BinRead>(&mut self, args: T::Args<'_>, what: impl Display) -> Result<T, ParseError> {
        let start = self.pos();
        T::read_options(&mut self.io, self.endian, args).map_err(|e| {
            let err = self.parse_error(&e, start, &what);
            // Leave the reader where the record started, as binrw does.
            let _ = self.io.seek(SeekFrom::Start(start as u64));
            err
        })
    }

    fn parse_error(&self, e: &binrw::Error, start: usize, what: &dyn Display) -> ParseError {
        use binrw::Error as E;
        let remain = self.data().len() - start;
        let short = || ParseError::new(start, format!("{what}, but only {remain} bytes remain"));
        match e {
            E::Backtrace(b) => self.parse_error(&b.error, start, what),
            E::Io(_) => short(),
            E::AssertFail { pos, message } => ParseError::new(*pos as usize, format!("{message} (in {what})")),
            E::Custom { pos, err } => ParseError::new(*pos as usize, format!("{err} (in {what})")),
            E::BadMagic { pos, found } => ParseError::new(*pos as usize, format!("{what}, found {found:?}")),
            // A tagged record whose tag matched no variant (or whose variant's data was cut short).
            E::EnumErrors { pos, variant_errors } => {
                if variant_errors.iter().any(|(_, v)| v.root_cause().is_eof()) {
                    return short();
                }
                match variant_errors.iter().find(|(_, v)| !matches!(v.root_cause(), E::BadMagic { .. })) {
                    Some((_, v)) => self.parse_error(v, start, what),
                    None => {
                        let found = self.data().get(*pos as usize).copied().unwrap_or(0);
                        ParseError::new(*pos as usize, format!("{what}, found {found}"))
                    }
                }
            }
            E::NoVariantMatch { pos } => ParseError::new(*pos as usize, format!("{what}")),
            _ => ParseError::new(start, format!("{what} ({e})")),
        }
    }
}

/// Appends one record to `out` in byte order `endian` (the record's own declaration wins).
pub fn put<T>(out: &mut Vec<u8>, endian: Endian, record: &T) -> Result<(), WriteError>
where
    T: for<'b> BinWrite<Args<'b> = ()>,
{
    record.write_options(&mut NoSeek::new(out), endian, ()).map_err(|e| WriteError(format!("writing a record: {e}")))
}

/// A finite `f32`: NaN and infinity have no meaning in a key, so reading one is an error at its offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Finite(pub f32);

impl BinRead for Finite {
    type Args<'a> = ();

    fn read_options<R: binrw::io::Read + Seek>(reader: &mut R, endian: Endian, (): ()) -> binrw::BinResult<Self> {
        let pos = reader.stream_position()?;
        let v = f32::read_options(reader, endian, ())?;
        if v.is_finite() {
            Ok(Finite(v))
        } else {
            Err(binrw::Error::AssertFail { pos, message: format!("a finite f32, found {v}") })
        }
    }
}

impl BinWrite for Finite {
    type Args<'a> = ();

    fn write_options<W: binrw::io::Write + Seek>(&self, writer: &mut W, endian: Endian, (): ()) -> binrw::BinResult<()> {
        self.0.write_options(writer, endian, ())
    }
}
