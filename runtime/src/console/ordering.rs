//! Ordering table + packet arena ("draw list"), and a pair of them for double buffering.
//!
//! The GPU's DMA linked-list mode walks packets whose header word holds the number of words that follow
//! (bits 24-31) and the address of the next packet (bits 0-23, 0xFFFFFF = end). The ordering table is
//! an array of empty headers chained from the last entry down to entry 0; adding a packet at depth `z`
//! splices it right after entry `z`. Sending from the last entry therefore draws the deepest packets
//! first: a larger `z` is farther away.
//!
//! A `DrawList` must stay at one address while the DMA reads it: keep it in a `static`.

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

/// One frame's ordering table (`DEPTHS` entries) and packet arena (`WORDS` words, headers included).
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
        if DEPTHS == 0 {
            return;
        }
        self.table[0] = END_OF_LIST;
        for z in 1..DEPTHS {
            self.table[z] = address(&self.table[z - 1]);
        }
    }

    /// Adds one GP0 command at depth `z` (0 = nearest, drawn last).
    pub fn add(&mut self, z: usize, packet: &[u32]) -> Result<(), AddError> {
        if z >= DEPTHS {
            return Err(AddError::DepthOutOfRange);
        }
        if packet.is_empty() || packet.len() > MAX_PACKET_WORDS {
            return Err(AddError::BadLength);
        }
        let start = self.used;
        let end = start + 1 + packet.len();
        if end > WORDS {
            return Err(AddError::ArenaFull);
        }
        self.arena[start] = (packet.len() as u32) << 24 | (self.table[z] & END_OF_LIST);
        self.arena[start + 1..end].copy_from_slice(packet);
        self.table[z] = address(&self.arena[start]);
        self.used = end;
        Ok(())
    }

    /// Words of the arena used so far (headers included).
    pub fn used_words(&self) -> usize {
        self.used
    }

    /// The first header the DMA reads: the deepest table entry.
    pub fn head(&self) -> *const u32 {
        match self.table.last() {
            Some(last) => last,
            None => core::ptr::null(),
        }
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
