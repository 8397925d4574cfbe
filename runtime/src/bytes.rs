//! Byte-field helpers shared by the blob readers ([`crate::animbin`], [`crate::clipbin`],
//! [`crate::tables`]) and the renderer that reads the tables' words in place.

/// A field that runs past the end of its blob: `needed` bytes asked for, `available` left at its
/// offset. Each parser turns it into its own error, at the field's offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Short {
    pub needed: u32,
    pub available: u32,
}

/// The `len` bytes at `at`, or how far short the blob falls.
pub(crate) fn field(bytes: &[u8], at: usize, len: usize) -> Result<&[u8], Short> {
    bytes.get(at..).and_then(|rest| rest.get(..len)).ok_or(Short {
        needed: len.min(u32::MAX as usize) as u32,
        available: bytes.len().saturating_sub(at).min(u32::MAX as usize) as u32,
    })
}

/// A fixed-width name field at `at`: its bytes up to the first NUL, all `width` when there is none
/// (a full-width name has no terminator), empty when the field is out of bounds.
pub(crate) fn name(bytes: &[u8], at: usize, width: usize) -> &[u8] {
    let field = bytes.get(at..).and_then(|rest| rest.get(..width)).unwrap_or(&[]);
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    &field[..end]
}

/// `count` little-endian words of `bytes` from `offset`, as `u32`s read in place, when that part of
/// the blob sits 4-aligned in memory (an embedded blob does when the program aligns it; sections are
/// aligned inside the blob). One load per word instead of four byte loads on the console.
pub(crate) fn aligned_words(bytes: &[u8], offset: usize, count: usize) -> Option<&[u32]> {
    if cfg!(target_endian = "big") {
        return None;
    }
    let section = bytes.get(offset..offset.checked_add(count.checked_mul(4)?)?)?;
    bytemuck::try_cast_slice(section).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_says_how_far_short_it_falls() {
        let blob = [1u8, 2, 3, 4, 5];
        assert_eq!(field(&blob, 1, 3), Ok(&blob[1..4]));
        assert_eq!(field(&blob, 3, 4), Err(Short { needed: 4, available: 2 }));
        assert_eq!(field(&blob, 9, 1), Err(Short { needed: 1, available: 0 }));
        assert_eq!(field(&blob, 2, usize::MAX), Err(Short { needed: u32::MAX, available: 3 }));
    }

    #[test]
    fn name_stops_at_the_first_nul_or_the_width() {
        let blob = *b"xxab\0cdefgh";
        assert_eq!(name(&blob, 2, 4), b"ab");
        assert_eq!(name(&blob, 5, 4), b"cdef");
        assert_eq!(name(&blob, 9, 4), b"");
    }
}
