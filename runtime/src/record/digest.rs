//! Record words that stand for many: a count and an FNV-1a hash of a frame's packets or of VRAM words,
//! computed the same way by a console program (of what it wrote or read back) and by the host (of
//! what it expects), so that one record word pair checks thousands of words bit for bit.
use crate::tables::textures::Rect;

/// FNV-1a, a word at a time (its four bytes, little-endian).
#[derive(Clone, Copy, Debug)]
pub struct Fnv(pub u32);

impl Fnv {
    pub const fn new() -> Self {
        Fnv(0x811C_9DC5)
    }
    pub fn word(&mut self, w: u32) {
        for b in w.to_le_bytes() {
            self.0 = (self.0 ^ b as u32).wrapping_mul(0x0100_0193);
        }
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}

/// FNV-1a over words.
pub fn fnv(words: impl Iterator<Item = u32>) -> u32 {
    let mut h = Fnv::new();
    words.for_each(|w| h.word(w));
    h.0
}

/// A running count and FNV-1a hash of words that come one at a time ([`WordHash::words`]: the two
/// record words).
#[derive(Clone, Copy, Debug, Default)]
pub struct WordHash {
    count: u32,
    hash: Fnv,
}

impl WordHash {
    pub const fn new() -> Self {
        WordHash { count: 0, hash: Fnv::new() }
    }
    pub fn add(&mut self, w: u32) {
        self.count += 1;
        self.hash.word(w);
    }
    pub fn words(&self) -> [u32; 2] {
        [self.count, self.hash.0]
    }
}

/// The record words of a stretch of linked packets (`arena`: headers and GP0 words, as an ordering
/// table's packet buffer holds them): its word count and a hash of every packet's GP0 words (colour,
/// command, points, UVs, page and CLUT words, in the order they were written), the headers left out
/// (they hold RAM addresses).
pub fn packet_words(arena: &[u32]) -> [u32; 2] {
    let mut h = Fnv::new();
    packets(arena).flatten().for_each(|&w| h.word(w));
    [arena.len() as u32, h.0]
}

/// Each packet's GP0 words in `arena` (linked packets as [`packet_words`] reads them), in the order
/// they were written.
pub fn packets(arena: &[u32]) -> impl Iterator<Item = &[u32]> {
    let mut at = 0;
    core::iter::from_fn(move || {
        let &tag = arena.get(at)?;
        let len = (tag >> 24) as usize;
        let words = arena.get(at + 1..at + 1 + len).unwrap_or(&[]);
        at += 1 + len;
        Some(words)
    })
}

/// The words an upload of `bytes` (little-endian halfwords filling `rect`) sends to VRAM and a read
/// of `rect` gives back: two halfwords a word, the last one's high half 0 when the count is odd
/// (VRAM keeps only the rectangle's).
pub fn upload_words(rect: Rect, bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    let half = move |i: usize| bytes.get(2 * i..2 * i + 2).map_or(0, |h| u16::from_le_bytes([h[0], h[1]]) as u32);
    let count = rect.halfwords();
    (0..count.div_ceil(2)).map(move |w| half(2 * w) | if 2 * w + 1 < count { half(2 * w + 1) << 16 } else { 0 })
}

/// Hashes what a read of `rect` gives (words as [`crate::console::gpu::read_image`] hands them):
/// the last word of an odd count keeps only its low halfword, as [`upload_words`] has it.
pub struct RectReader<'a> {
    hash: &'a mut WordHash,
    left: usize,
}

impl<'a> RectReader<'a> {
    pub fn new(hash: &'a mut WordHash, rect: Rect) -> Self {
        RectReader { hash, left: rect.halfwords() }
    }
    pub fn add(&mut self, w: u32) {
        self.hash.add(if self.left == 1 { w & 0xFFFF } else { w });
        self.left = self.left.saturating_sub(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_words_hash_the_gp0_words_and_not_the_headers() {
        // Two packets: 2 words, then 1; headers differ in their link addresses only.
        let a = [0x0200_1234, 0x2000_00FF, 0x0010_0020, 0x0100_5678, 0x2800_0000];
        let b = [0x02AB_CDEF, 0x2000_00FF, 0x0010_0020, 0x0100_0000, 0x2800_0000];
        assert_eq!(packet_words(&a), packet_words(&b));
        assert_eq!(packet_words(&a)[0], 5);
        assert_eq!(packet_words(&a)[1], fnv([0x2000_00FF, 0x0010_0020, 0x2800_0000].into_iter()));
        let mut c = a;
        c[2] ^= 1 << 16; // one bit of a UV or point
        assert_ne!(packet_words(&a), packet_words(&c));
    }

    #[test]
    fn a_read_back_of_an_odd_rectangle_hashes_as_its_upload() {
        let rect = Rect { x: 0, y: 0, w: 3, h: 1 };
        let bytes = [1, 0, 2, 0, 3, 0];
        let mut uploaded = [0u32; 2];
        assert_eq!(upload_words(rect, &bytes).zip(&mut uploaded).map(|(w, u)| *u = w).count(), 2);
        assert_eq!(uploaded, [0x0002_0001, 0x0000_0003]);
        let mut expected = WordHash::new();
        uploaded.iter().for_each(|&w| expected.add(w));
        // VRAM gives the halfword past the rectangle in the last word's high half.
        let mut read = WordHash::new();
        let mut reader = RectReader::new(&mut read, rect);
        for w in [0x0002_0001, 0xBEEF_0003] {
            reader.add(w);
        }
        assert_eq!(read.words(), expected.words());
        assert_eq!(read.words()[0], 2);
    }
}
