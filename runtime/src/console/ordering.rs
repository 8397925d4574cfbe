//! Ordering table + packet arena ("draw list"), and a pair of them for double buffering.
//!
//! The GPU's DMA linked-list mode walks packets whose header word holds the number of words that follow
//! (bits 24-31) and the address of the next packet (bits 0-23, 0xFFFFFF = end). The ordering table is
//! an array of empty headers chained from the last entry down to entry 0; adding a packet at depth `z`
//! splices it right after entry `z`. Sending from the last entry therefore draws the deepest packets
//! first: a larger `z` is farther away.
//!
//! A `DrawList` must stay at one address while the DMA reads it: keep it in a `static`.

use crate::gte::PacketList;

/// Header of the last packet of a list.
const END_OF_LIST: u32 = 0x00FF_FFFF;
/// A GP0 packet is at most 255 words (the header's length field is 8 bits).
pub const MAX_PACKET_WORDS: usize = 255;

/// Why a packet was not added.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AddError {
    /// The depth is not below the table's length.
    DepthOutOfRange,
    /// The packet is empty or longer than `MAX_PACKET_WORDS`.
    BadLength,
    /// The arena has no room left for this frame.
    ArenaFull,
}

/// An ordering table and a packet buffer that belong to someone else (a game's frame, or a
/// [`DrawList`]), and the count of buffer words already used, which every added packet advances.
///
/// The contract with a game:
/// - `table` is reverse-linked, the format DMA channel 6 (OTC) writes and PsyQ's `ClearOTagR` makes:
///   entry `z` holds the header word `0x00` << 24 | address of entry `z - 1`, entry 0 holds
///   `0x00FF_FFFF` (end). [`clear_table`] writes it with the CPU. The list is sent from the last entry
///   (DMA channel 2, linked-list mode), so a larger depth is drawn earlier, farther away. (`psx`'s
///   `gpu::ordering_table` links the other way, entry 0 first: do not use it for this table.)
/// - A packet added at depth `z` is spliced right after entry `z`: a header word (`len << 24` | the
///   24-bit address of what followed entry `z`) then its `len` GP0 words, at `packets[*used..]`.
/// - `packets` and `table` must stay where they are until the DMA has sent them.
pub struct FramePackets<'a> {
    table: &'a mut [u32],
    arena: &'a mut [u32],
    used: &'a mut usize,
}

impl<'a> FramePackets<'a> {
    /// The game's `table` (already cleared for this frame), its packet buffer, and its count of used
    /// buffer words (packets are written from `packets[*used]` on and `*used` is advanced).
    pub fn new(table: &'a mut [u32], packets: &'a mut [u32], used: &'a mut usize) -> Self {
        FramePackets { table, arena: packets, used }
    }

    /// Entries of the ordering table.
    pub fn depths(&self) -> usize {
        self.table.len()
    }

    /// Adds one GP0 command at depth `z` (0 = nearest, drawn last).
    pub fn add(&mut self, z: usize, packet: &[u32]) -> Result<(), AddError> {
        if z >= self.table.len() {
            return Err(AddError::DepthOutOfRange);
        }
        if packet.is_empty() || packet.len() > MAX_PACKET_WORDS {
            return Err(AddError::BadLength);
        }
        let start = *self.used;
        let Some(words) = self.arena.get_mut(start..start + 1 + packet.len()) else {
            return Err(AddError::ArenaFull);
        };
        words[0] = (packet.len() as u32) << 24 | (self.table[z] & END_OF_LIST);
        words[1..].copy_from_slice(packet);
        self.table[z] = address(&words[0]);
        *self.used = start + 1 + packet.len();
        Ok(())
    }

    /// [`add`](Self::add) for a packet whose length is a compile-time constant, inlined into the
    /// caller: the words are stored one by one (no slice copy, so no `memcpy` call) and the only
    /// checks are the depth and one room test.
    #[inline(always)]
    pub fn add_array<const N: usize>(&mut self, z: usize, packet: [u32; N]) -> Result<(), AddError> {
        if z >= self.table.len() {
            return Err(AddError::DepthOutOfRange);
        }
        if N == 0 || N > MAX_PACKET_WORDS {
            return Err(AddError::BadLength);
        }
        let start = *self.used;
        let Some(words) = self.arena.get_mut(start..start + 1 + N) else {
            return Err(AddError::ArenaFull);
        };
        words[0] = (N as u32) << 24 | (self.table[z] & END_OF_LIST);
        for (w, p) in words[1..].iter_mut().zip(packet) {
            *w = p;
        }
        self.table[z] = address(&words[0]);
        *self.used = start + 1 + N;
        Ok(())
    }

    /// The unused buffer and the table, for a writer that links its own packets in this format
    /// ([`Cop2::flat_packets`](crate::gte::Cop2::flat_packets)) at depths up to `max_depth`; `commit`
    /// then counts the words it wrote.
    pub fn packet_list(&mut self, max_depth: usize) -> PacketList<'_> {
        let from = (*self.used).min(self.arena.len());
        PacketList { arena: &mut self.arena[from..], table: self.table, max_depth: max_depth as u32 }
    }

    /// Counts `words` more buffer words as used, written through `packet_list`.
    pub fn commit(&mut self, words: usize) {
        *self.used = (*self.used + words).min(self.arena.len());
    }

    /// Words of the buffer used so far (headers included).
    pub fn used_words(&self) -> usize {
        *self.used
    }
}

/// Clears an ordering table into the reverse-linked format of [`FramePackets`]: each entry an empty
/// header pointing at the entry below it, entry 0 the end of the list. What DMA channel 6 (OTC) does,
/// with the CPU.
pub fn clear_table(table: &mut [u32]) {
    let Some(first) = table.first_mut() else {
        return;
    };
    *first = END_OF_LIST;
    for z in 1..table.len() {
        table[z] = address(&table[z - 1]);
    }
}

/// The first header the DMA reads for a table in [`FramePackets`]' format: its last entry.
pub fn table_head(table: &[u32]) -> *const u32 {
    match table.last() {
        Some(last) => last,
        None => core::ptr::null(),
    }
}

/// One frame's ordering table (`DEPTHS` entries) and packet arena (`WORDS` words, headers included),
/// in one place: the examples' own frame ([`FramePackets`] over its arrays).
pub struct DrawList<const DEPTHS: usize, const WORDS: usize> {
    table: [u32; DEPTHS],
    arena: [u32; WORDS],
    used: usize,
}

impl<const DEPTHS: usize, const WORDS: usize> DrawList<DEPTHS, WORDS> {
    pub const fn new() -> Self {
        DrawList { table: [0; DEPTHS], arena: [0; WORDS], used: 0 }
    }

    /// Empties the list: chains the table entries from the last down to 0, arena unused.
    pub fn clear(&mut self) {
        self.used = 0;
        clear_table(&mut self.table);
    }

    /// The table and arena as a [`FramePackets`] (what the renderer's sink takes).
    pub fn frame(&mut self) -> FramePackets<'_> {
        FramePackets::new(&mut self.table, &mut self.arena, &mut self.used)
    }

    /// Adds one GP0 command at depth `z` (0 = nearest, drawn last).
    pub fn add(&mut self, z: usize, packet: &[u32]) -> Result<(), AddError> {
        self.frame().add(z, packet)
    }

    /// [`FramePackets::add_array`].
    #[inline(always)]
    pub fn add_array<const N: usize>(&mut self, z: usize, packet: [u32; N]) -> Result<(), AddError> {
        self.frame().add_array(z, packet)
    }

    /// [`FramePackets::packet_list`].
    pub fn packet_list(&mut self, max_depth: usize) -> PacketList<'_> {
        PacketList { arena: &mut self.arena[self.used..], table: &mut self.table, max_depth: max_depth as u32 }
    }

    /// [`FramePackets::commit`].
    pub fn commit(&mut self, words: usize) {
        self.used = (self.used + words).min(WORDS);
    }

    /// Words of the arena used so far (headers included).
    pub fn used_words(&self) -> usize {
        self.used
    }

    /// The packets written so far, headers included, in the order they were written.
    pub fn packets(&self) -> &[u32] {
        &self.arena[..self.used]
    }

    /// The first header the DMA reads: the deepest table entry.
    pub fn head(&self) -> *const u32 {
        table_head(&self.table)
    }
}

impl<const DEPTHS: usize, const WORDS: usize> Default for DrawList<DEPTHS, WORDS> {
    fn default() -> Self {
        Self::new()
    }
}

/// The 24-bit physical address of a word, as a linked-list header wants it.
fn address(word: &u32) -> u32 {
    (word as *const u32 as usize as u32) & END_OF_LIST
}

/// Two draw lists: one is built by the CPU while the GPU draws from the other.
/// List `i` draws into screen buffer `i` (`gpu::draw_to(i)`).
pub struct DoubleBuffered<const DEPTHS: usize, const WORDS: usize> {
    lists: [DrawList<DEPTHS, WORDS>; 2],
    building: usize,
}

impl<const DEPTHS: usize, const WORDS: usize> DoubleBuffered<DEPTHS, WORDS> {
    pub const fn new() -> Self {
        DoubleBuffered { lists: [DrawList::new(), DrawList::new()], building: 0 }
    }
    /// Index (0 or 1) of the list being built, which is also the screen buffer it draws into.
    pub fn building_index(&self) -> usize {
        self.building
    }
    /// The list being built this frame.
    pub fn building(&mut self) -> &mut DrawList<DEPTHS, WORDS> {
        &mut self.lists[self.building]
    }
    /// Swaps the roles of the two lists (after the built one has been sent).
    pub fn flip(&mut self) {
        self.building ^= 1;
    }
}

impl<const DEPTHS: usize, const WORDS: usize> Default for DoubleBuffered<DEPTHS, WORDS> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::boxed::Box;
    use std::vec::Vec;

    type List = DrawList<4, 32>;

    /// Follows the chain from the head as the DMA does, mapping each 24-bit address back to a word of
    /// `list` (its offset from the list's own low 24 address bits). Returns the packets in send order.
    fn walk(list: &List) -> Vec<Vec<u32>> {
        let base = list as *const List as usize;
        let word_at = |addr: u32| -> u32 {
            let offset = (addr as usize).wrapping_sub(base) & 0x00FF_FFFF;
            assert!(offset < core::mem::size_of::<List>() && offset & 3 == 0, "link outside the list: {addr:#x}");
            // SAFETY: the offset was just checked to be a word inside `list`.
            unsafe { *((base + offset) as *const u32) }
        };
        let mut packets = Vec::new();
        let mut at = address(&list.table[3]);
        for _ in 0..100 {
            let header = word_at(at);
            let len = header >> 24;
            if len > 0 {
                packets.push((1..=len).map(|i| word_at((at + 4 * i) & END_OF_LIST)).collect());
            }
            if header & END_OF_LIST == END_OF_LIST {
                return packets;
            }
            at = header & END_OF_LIST;
        }
        panic!("the list does not end");
    }

    #[test]
    fn deeper_packets_are_sent_first_and_the_list_ends() {
        let mut list = Box::new(List::new());
        list.clear();
        assert!(walk(&list).is_empty());
        list.add(3, &[0xA1]).unwrap();
        list.add(0, &[0xB1, 0xB2]).unwrap();
        list.add(3, &[0xC1, 0xC2, 0xC3]).unwrap();
        list.add(1, &[0xD1]).unwrap();
        // Same depth: the packet added last is spliced in first.
        assert_eq!(walk(&list), [std::vec![0xC1, 0xC2, 0xC3], std::vec![0xA1], std::vec![0xD1], std::vec![0xB1, 0xB2]]);
        assert_eq!(list.used_words(), 2 + 3 + 4 + 2, "each packet plus its header word");
        list.clear();
        assert!(walk(&list).is_empty());
        assert_eq!(list.used_words(), 0);
    }

    #[test]
    fn bad_packets_are_refused_and_change_nothing() {
        let mut list = Box::new(List::new());
        list.clear();
        list.add(2, &[1, 2, 3]).unwrap();
        assert_eq!(list.add(4, &[1]), Err(AddError::DepthOutOfRange));
        assert_eq!(list.add(0, &[]), Err(AddError::BadLength));
        assert_eq!(list.add(0, &[0; 256]), Err(AddError::BadLength));
        // 32 words: 4 used, so a 28-word packet (29 with its header) does not fit, a 27-word one does.
        assert_eq!(list.add(0, &[7; 28]), Err(AddError::ArenaFull));
        assert_eq!(walk(&list), [std::vec![1, 2, 3]]);
        list.add(0, &[7; 27]).unwrap();
        assert_eq!(list.used_words(), 32);
        assert_eq!(list.add(1, &[1]), Err(AddError::ArenaFull));
    }

    #[test]
    fn add_array_links_like_add() {
        let (mut a, mut b) = (Box::new(List::new()), Box::new(List::new()));
        a.clear();
        b.clear();
        for (z, p) in [(3, [0xA1, 0xA2]), (0, [0xB1, 0xB2]), (3, [0xC1, 0xC2])] {
            a.add(z, &p).unwrap();
            b.add_array(z, p).unwrap();
        }
        assert_eq!(walk(&a), walk(&b));
        assert_eq!(a.used_words(), b.used_words());
        assert_eq!(b.add_array(4, [1]), Err(AddError::DepthOutOfRange));
        assert_eq!(b.add_array(0, [0u32; 0]), Err(AddError::BadLength));
        // 9 of 32 words used: 22 words and a header fit, 23 do not.
        assert_eq!(b.add_array(1, [7; 23]), Err(AddError::ArenaFull));
        assert_eq!(walk(&b).len(), 3, "a refused packet changes nothing");
        b.add_array(1, [7; 22]).unwrap();
        assert_eq!(b.used_words(), 32);
    }

    #[test]
    fn packets_linked_by_a_writer_walk_like_add_array() {
        let (mut a, mut b) = (Box::new(List::new()), Box::new(List::new()));
        a.clear();
        b.clear();
        a.add_array(1, [0xF0]).unwrap();
        b.add_array(1, [0xF0]).unwrap();
        let packets = [(3, [0xA1, 0xA2]), (0, [0xB1, 0xB2]), (3, [0xC1, 0xC2]), (2, [0xD1, 0xD2])];
        for (z, p) in packets {
            a.add_array(z, p).unwrap();
        }
        // What `Cop2::flat_packets` does for each packet: header linked to the entry, entry to it.
        let out = b.packet_list(3);
        for (i, (z, p)) in packets.iter().enumerate() {
            let at = 3 * i;
            out.arena[at..at + 3].copy_from_slice(&[2 << 24 | (out.table[*z] & END_OF_LIST), p[0], p[1]]);
            out.table[*z] = address(&out.arena[at]);
        }
        b.commit(3 * packets.len());
        assert_eq!(walk(&a), walk(&b));
        assert_eq!(a.used_words(), b.used_words());
        b.commit(100);
        assert_eq!(b.used_words(), 32, "never past the arena");
    }

    #[test]
    fn double_buffering_alternates() {
        let mut pair = Box::new(DoubleBuffered::<2, 8>::new());
        assert_eq!(pair.building_index(), 0);
        pair.building().clear();
        pair.building().add(0, &[5]).unwrap();
        pair.flip();
        assert_eq!(pair.building_index(), 1);
        pair.building().clear();
        assert_eq!(pair.building().used_words(), 0);
        pair.flip();
        assert_eq!(pair.building().used_words(), 2, "list 0 kept its packet");
    }
}
