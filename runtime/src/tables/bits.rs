//! Least-significant-bit-first bit reader over a byte slice, used by the pose-sample streams.
//!
//! Bit `n` of the stream is bit `n % 8` of byte `n / 8`. Every read is bounds-checked and reports the bit
//! position it failed at, so a truncated or corrupt stream yields an error, never a panic.

use super::TableError;

/// A cursor into a bit stream. Cheap to copy: decoding a frame keeps two of them (constants, block).
#[derive(Clone, Copy, Debug)]
pub struct BitReader<'a> {
    bytes: &'a [u8],
    /// `bytes` as whole little-endian words read in place, when it starts 4-aligned in memory (an
    /// embedded blob's streams do); empty otherwise. One load per word instead of four byte loads.
    words: &'a [u32],
    /// Absolute position of `bytes[0]` in the blob, for error messages.
    base_offset: usize,
    bit: usize,
}

impl<'a> BitReader<'a> {
    pub fn new(bytes: &'a [u8], base_offset: usize, bit: usize) -> Self {
        let (head, words, _) = bytemuck::pod_align_to::<u8, u32>(bytes);
        let words = if head.is_empty() && cfg!(target_endian = "little") { words } else { &[] };
        Self { bytes, words, base_offset, bit }
    }

    /// Reads `width` (0..=32) bits as an unsigned value.
    #[inline(always)]
    pub fn read(&mut self, width: u32) -> Result<u32, TableError> {
        let raw = self.take(width)?;
        // Keep the low `width` bits (32-bit shifts only: 64-bit ones are long sequences on the R3000).
        Ok(if width == 0 { 0 } else { (raw << (32 - width)) >> (32 - width) })
    }

    /// Reads `width` bits as a two's-complement signed value.
    #[inline(always)]
    pub fn read_signed(&mut self, width: u32) -> Result<i32, TableError> {
        let raw = self.take(width)?;
        Ok(if width == 0 { 0 } else { ((raw << (32 - width)) as i32) >> (32 - width) })
    }

    /// Checks that `width` bits remain and returns them in the low bits, with unspecified bits above
    /// `width`; advances past them.
    #[inline(always)]
    fn take(&mut self, width: u32) -> Result<u32, TableError> {
        if width > 32 {
            return Err(TableError::BadBitWidth { offset: self.byte_offset(), width });
        }
        if width == 0 {
            return Ok(0);
        }
        let end = self.bit + width as usize;
        if end > self.bytes.len() * 8 {
            return Err(TableError::BitStreamEnd {
                offset: self.byte_offset(),
                bits_wanted: width,
                bits_left: (self.bytes.len() * 8).saturating_sub(self.bit),
            });
        }
        let at = self.bit / 32;
        if at + 1 < self.words.len() {
            // The field lies in this word and the next (which exists: no bounds to think about).
            let shift = (self.bit % 32) as u32;
            let mut value = self.words[at] >> shift;
            if shift != 0 {
                value |= self.words[at + 1] << (32 - shift);
            }
            self.bit = end;
            return Ok(value);
        }
        let shift = (self.bit % 8) as u32;
        // At most five bytes hold the field: four gathered into a word, the fifth only when the field
        // starts mid-byte and reaches past that word (then `shift` > 0).
        let span = &self.bytes[self.bit / 8..=(end - 1) / 8];
        let mut word = 0u32;
        for (i, byte) in span.iter().take(4).enumerate() {
            word |= (*byte as u32) << (8 * i);
        }
        let mut value = word >> shift;
        if let Some(fifth) = span.get(4) {
            value |= (*fifth as u32) << (32 - shift);
        }
        self.bit = end;
        Ok(value)
    }

    /// Advances without reading (the skipped bits must exist).
    pub fn skip(&mut self, bits: usize) -> Result<(), TableError> {
        if self.bit + bits > self.bytes.len() * 8 {
            return Err(TableError::BitStreamEnd {
                offset: self.byte_offset(),
                bits_wanted: bits.min(u32::MAX as usize) as u32,
                bits_left: (self.bytes.len() * 8).saturating_sub(self.bit),
            });
        }
        self.bit += bits;
        Ok(())
    }

    /// The current position, in bits from the start of the stream.
    pub fn bit(&self) -> usize {
        self.bit
    }

    /// Moves to bit `bit` of the stream (reads check the bounds).
    pub fn seek(&mut self, bit: usize) {
        self.bit = bit;
    }

    /// Byte offset in the blob of the current position (rounded down).
    pub fn byte_offset(&self) -> usize {
        self.base_offset + self.bit / 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_reads_match_byte_reads() {
        #[repr(C, align(4))]
        struct Aligned([u8; 44]);
        let mut a = Aligned([0; 44]);
        let mut x = 0x1234_5678u32;
        for b in a.0.iter_mut() {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            *b = (x >> 16) as u8;
        }
        // The same 40 bytes, once aligned (word loads) and once one byte in (byte loads).
        let mut shifted = Aligned([0; 44]);
        shifted.0[1..41].copy_from_slice(&a.0[..40]);
        let mut words = BitReader::new(&a.0[..40], 0, 0);
        let mut bytes = BitReader::new(&shifted.0[1..41], 0, 0);
        assert!(!words.words.is_empty() && bytes.words.is_empty());
        for width in (0..=32).chain((1..=32).rev()).chain([7, 32, 1, 31, 5]) {
            if width > 0 && words.bit + width as usize > 320 {
                break;
            }
            assert_eq!(words.read_signed(width), bytes.read_signed(width), "width {width} at bit {}", bytes.bit);
        }
        assert!(words.bit > 256, "the reads reached the last words (bit {})", words.bit);
        assert_eq!(words.read(32).is_err(), bytes.read(32).is_err());
    }

    #[test]
    fn reads_lsb_first_across_bytes() {
        // 0b1011_0110, 0b0000_0011: bits 0.. = 0,1,1,0,1,1,0,1, 1,1,0...
        let bytes = [0b1011_0110u8, 0b0000_0011];
        let mut r = BitReader::new(&bytes, 100, 0);
        assert_eq!(r.read(3).unwrap(), 0b110);
        assert_eq!(r.read(7).unwrap(), 0b111_0110);
        assert_eq!(r.read_signed(2).unwrap(), 0);
        assert_eq!(r.byte_offset(), 101);
    }

    #[test]
    fn signed_values_sign_extend() {
        let bytes = [0b0000_0111u8];
        let mut r = BitReader::new(&bytes, 0, 0);
        assert_eq!(r.read_signed(3).unwrap(), -1);
        let mut r = BitReader::new(&[0xFF, 0xFF, 0xFF, 0xFF], 0, 0);
        assert_eq!(r.read_signed(32).unwrap(), -1);
    }

    #[test]
    fn reading_past_the_end_is_an_error_with_its_offset() {
        let bytes = [0u8; 2];
        let mut r = BitReader::new(&bytes, 40, 10);
        assert_eq!(r.read(7), Err(TableError::BitStreamEnd { offset: 41, bits_wanted: 7, bits_left: 6 }));
        assert_eq!(r.read(33), Err(TableError::BadBitWidth { offset: 41, width: 33 }));
    }
}
