//! A bounds-checked reader over a byte slice whose every error names the offset and what was expected.

use super::ParseError;

pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8]) -> Cursor<'a> {
        Cursor { data, pos: 0 }
    }

    pub fn at(data: &'a [u8], pos: usize) -> Cursor<'a> {
        Cursor { data, pos: pos.min(data.len()) }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn error(&self, expected: impl Into<String>) -> ParseError {
        ParseError::new(self.pos, expected)
    }

    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], ParseError> {
        if n > self.remaining() {
            return Err(self.error(format!(
                "{what} ({n} bytes), but only {} bytes remain",
                self.remaining()
            )));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], ParseError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.bytes(N, what)?);
        Ok(out)
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, ParseError> {
        Ok(self.array::<1>(what)?[0])
    }
    pub fn u16_le(&mut self, what: &str) -> Result<u16, ParseError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }
    pub fn u16_be(&mut self, what: &str) -> Result<u16, ParseError> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }
    pub fn i16_le(&mut self, what: &str) -> Result<i16, ParseError> {
        Ok(i16::from_le_bytes(self.array(what)?))
    }
    pub fn i16_be(&mut self, what: &str) -> Result<i16, ParseError> {
        Ok(i16::from_be_bytes(self.array(what)?))
    }
    pub fn u32_le(&mut self, what: &str) -> Result<u32, ParseError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    pub fn u32_be(&mut self, what: &str) -> Result<u32, ParseError> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }
    pub fn i32_le(&mut self, what: &str) -> Result<i32, ParseError> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }

    /// A little-endian `f32` that must be finite (NaN and infinity have no meaning in a key).
    pub fn f32_le(&mut self, what: &str) -> Result<f32, ParseError> {
        let at = self.pos;
        let v = f32::from_le_bytes(self.array(what)?);
        finite(v, at, what)
    }
    pub fn f32_be(&mut self, what: &str) -> Result<f32, ParseError> {
        let at = self.pos;
        let v = f32::from_be_bytes(self.array(what)?);
        finite(v, at, what)
    }

    /// Checks that `count` elements of `elem_bytes` each fit in what remains, before anything is
    /// allocated for them, and returns the count as `usize`.
    pub fn count(&self, count: u64, elem_bytes: usize, what: &str) -> Result<usize, ParseError> {
        let need = count.checked_mul(elem_bytes as u64);
        match need {
            Some(need) if need <= self.remaining() as u64 => Ok(count as usize),
            _ => Err(self.error(format!(
                "{count} {what} of {elem_bytes} bytes each, but only {} bytes remain",
                self.remaining()
            ))),
        }
    }
}

fn finite(v: f32, at: usize, what: &str) -> Result<f32, ParseError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(ParseError::new(at, format!("{what} as a finite f32, found {v}")))
    }
}
