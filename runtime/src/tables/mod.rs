//! The compiled character tables (`psxanim import`): a zero-copy reader of the blob the console embeds.
//!
//! The tooling writes one blob per imported character; a program embeds it with `include_bytes!` and
//! reads it in place with [`Tables::parse`]: no copy, no heap. Parsing checks every section against the
//! blob's size and every index against its table once, so the accessors cannot go out of bounds; the
//! sample decoders ([`Tables::decode_pose`], [`Tables::decode_baked_frame`]) check their streams as they
//! read. Every error names the byte offset it was found at.
//!
//! # Units and axes
//! Positions are GTE units: 1 m = 4096 units (Q12 metres), so an `i16` holds +-7.99 m and the import
//! profile's +-7.5 m limit fits with margin. Axes are the PlayStation's: +X right, +Y down, +Z away from
//! the viewer (into the screen), right-handed.
//!
//! # Layout, versions 6 and 7 (all little-endian; every section starts 4-byte aligned)
//! ```text
//! header, 72 bytes (version 6), 88 bytes (version 7: a textured or lit character), 64 before version 6
//!   0 [u8;4] magic "PXSK"             4 u16 version (6 or 7)      6 u16 storage: 0 rigid-gte, 1 baked-vertices
//!   8 u16 bone count                 10 u16 vertex count         12 u16 triangle count (a quad counts 2)
//!  14 u16 material count             16 u16 clip count           18 u16 primitive stream words
//!  20 i16[6] bounds: min x,y,z, max x,y,z (model space, cover the bind pose and every sample of every clip)
//!  32 u32 total size of the blob     36 u32 strings offset       40 u32 bones offset
//!  44 u32 vertices offset            48 u32 primitives offset    52 u32 materials offset
//!  56 u32 clips offset               60 u32 strings size
//!  64 u32 blend offset (0 without)   68 u16 blend pair count    70 u16 blend group count   (versions 6, 7)
//!  72 u32 textures offset            76 u32 uvs offset                                     (version 7)
//!  80 u32 normals offset (0 without) 84 u32 flags: bit 0 normals packed (below); no other bit
//! strings: each name is u8 length + UTF-8 bytes; names are referenced by their offset in this section
//! bones, 8 bytes each, parent-first:  u16 parent (0xFFFF = root), u16 first vertex, u16 vertex count, u16 name
//!   rigid-gte: bone b's vertices are the contiguous range [first, first+count), in b's local space.
//!   baked-vertices: ranges are empty (the skeleton is kept for names and attachment only).
//! vertices, 8 bytes each: i16 x, y, z, i16 0 (the GTE's SVECTOR shape); with packed normals the
//!   fourth halfword is the vertex's normal's z (the GTE's VZ keeps a word's low half)
//!   rigid-gte: bone-local positions; baked-vertices: model-space bind positions, within +-30,720,
//!   followed by their decode lanes (`2 * ceil(3 * vertex count / 4)` words, [`baked`])
//! primitives: runs of triangles, quads and quad strips, then an end word ([`primitives`] documents
//!   them); each run's indices count from its base vertex, so a stream reaches 5,104 vertices
//! materials, 4 bytes each: u8 r, g, b (base colour), u8 texture index + 1 (0: untextured; 0 before
//!   version 7)
//! clips, 20 bytes each: u16 name, u16 frame count, u16 sample rate (Hz), u16 event count,
//!                       u32 data offset, u32 data size, u32 events offset (0 without events)
//! events of a clip, 4 bytes each: u16 frame (below the clip's frame count), u16 name
//! blend (rigid-gte, versions 6 and 7; [`blend`] documents it): vertices that follow two bones
//!   pairs, 28 bytes each: u16 bone a, u16 bone b (a != b, both below the bone count),
//!                         u32[6] b's bind-local space from a's (`inverse(bind b) * bind a`) as the
//!                         GTE's register words (`gte::PackedMatrix`: FP12 columns, i16 translation)
//!   groups, 8 bytes each, sorted by pair: u16 pair, u16 weight (bone b's share, FP12, 0..=4096),
//!                         u16 first vertex, u16 vertex count (inside the vertices, in a's local space)
//! textures (version 7; [`textures`] documents it): u16 count, u16 0, 24-byte entries (depth, size,
//!   default VRAM places, data offset), each texture's image and CLUT halfwords
//! uvs (version 7): one u32 per vertex, u | v << 8 (a vertex split at a UV seam is one vertex per UV)
//! normals (version 7, rigid-gte, `import --lighting`): FP12, unit length within rounding, in the
//!   vertex's bone space; a vertex split where its normal turns (a hard edge) as at a UV seam.
//!   Packed (flag bit 0, what the tooling writes): 4 bytes per vertex, i16 x, y, the z in the
//!   vertex's fourth halfword, so that the lit pass loads three words a vertex instead of four.
//!   Unpacked (blobs written before the flag): 8 bytes per vertex, i16 x, y, z, i16 0; read, lit by
//!   the light stage (the fused pass needs the packed layout)
//! ```
//! Version 3 added the clips' events (version 2's clip entries were 16 bytes, with a `u16 flags`
//! of 0 where the event count is). Version 5 gave each primitive run a base vertex (the top byte of its
//! header, zero before): a version 4 blob is a version 5 blob whose bases are all zero, and is read.
//! Version 6 added the blend section and the header's 8 bytes that locate it: a version 4 or 5 blob
//! is a version 6 blob without blended vertices (its sections start at 64), and is read; anything
//! older is refused ([`TableError::UnsupportedVersion`]). Version 7 is a textured character's: the
//! version 6 header (blend at 64..72, zero without blended vertices), then the offsets of the texture
//! section and of the UV words ([`textures`] documents both); the tooling writes it only for a
//! character with textures, version 6 otherwise. The player reports events like ANIMBIN markers
//! ([`crate::anim::Animator::update_events`]).
//! The clip data of a rigid-gte blob are pose samples ([`pose`] documents them); those of a
//! baked-vertices blob are a table of `u32` frame offsets pointing at shared frame payloads ([`baked`]).

mod baked;
mod bits;
pub mod blend;
mod pose;
pub mod stream;
pub mod primitives;
pub mod textures;

pub use baked::{
    decode_baked_frame_payload, decode_lane, delta_byte, delta_word_count, delta_words, BAKED_BIND_LIMIT, BAKED_DELTA_BIAS,
    BAKED_DELTA_SCALE, FRAME_DELTA, FRAME_HEADER_SIZE, FRAME_RAW, LANE_BIAS,
};
pub use bits::BitReader;
/// The root table of `sqrt_q30`, for the console's crossfade loop (`render::bones`).
#[cfg(target_os = "psx")]
pub(crate) use pose::SQRT_TABLE;
pub use pose::{
    block_count_of, constant_size, rebuild_rotation, sqrt_q30, BoneSample, ChannelDescriptor, CHANNELS_PER_BONE, CHANNEL_ANIMATED,
    CHANNEL_DESCRIPTOR_SIZE, CHANNEL_IDENTITY, CHANNEL_NARROW, CONSTANT_NARROW_SIZE,
    CLIP_POSE_HEADER_SIZE, CONSTANT_ROTATION_SIZE, CONSTANT_VECTOR_SIZE, ROTATION_FRAC, ROTATION_STORED_FRAC, SCALE_FRAC, TRANSLATION_FRAC,
    WIDTHS_DROPPED_SHIFT, WIDTHS_RESIDUAL_SHIFT, WIDTH_BITS,
};

/// The four bytes every blob starts with.
pub const MAGIC: [u8; 4] = *b"PXSK";
/// The layout version the tooling writes (3: clip entries of 20 bytes with their events; 4: baked
/// payloads aligned, escapes listed after the deltas, decode lanes after a baked blob's vertices; 5:
/// primitive runs with a base vertex; 6: the blend section of two-bone vertices).
pub const VERSION: u16 = 6;
/// The version of a textured blob (its header is [`HEADER_SIZE_V7`] bytes).
pub const VERSION_TEXTURED: u16 = 7;
/// The oldest version this reader reads (the same layout with every run's base zero).
pub const OLDEST_VERSION: u16 = 4;
pub const HEADER_SIZE: usize = 64;
/// The header of a version 6 blob: [`HEADER_SIZE`] and the blend section's offset and counts.
pub const HEADER_SIZE_V6: usize = 72;
/// The header of a version 7 blob: [`HEADER_SIZE_V6`] (the blend section's offset and counts at
/// 64..72), then the texture section's offset and the UV words' offset (`textures`).
pub const HEADER_SIZE_V7: usize = 88;
/// Header fields of version 7: the texture section's offset, the UV words', the normals'.
pub const TEXTURES_AT: usize = 72;
/// A stored normal's squared length, within rounding of 4096² (each coordinate rounded: +-3 * 4096).
const NORMAL_LENGTH2_MIN: i64 = 4096 * 4096 - 3 * 4096 - 3;
const NORMAL_LENGTH2_MAX: i64 = 4096 * 4096 + 3 * 4096 + 3;
pub const UVS_AT: usize = 76;
pub const NORMALS_AT: usize = 80;
/// Version 7's flags word.
pub const FLAGS_AT: usize = 84;
/// Flag: normals packed, x and y in the normals section, z in each vertex's fourth halfword.
pub const FLAG_NORMALS_PACKED: u32 = 1;
pub const BONE_SIZE: usize = 8;
pub const VERTEX_SIZE: usize = 8;
pub const MATERIAL_SIZE: usize = 4;
pub const CLIP_SIZE: usize = 20;
pub const EVENT_SIZE: usize = 4;
/// Parent value of a root bone.
pub const NO_PARENT: u16 = 0xFFFF;

/// The 64-byte header, field by field (little-endian, as the console and every host this runs on
/// are): read from a blob with [`Header::read`], written by the tooling with `bytemuck::bytes_of`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Header {
    pub magic: [u8; 4],
    pub version: u16,
    /// [`Storage`] as a number (0 rigid-gte, 1 baked-vertices).
    pub storage: u16,
    pub bone_count: u16,
    pub vertex_count: u16,
    /// Triangles drawn (a quad counts 2).
    pub triangle_count: u16,
    pub material_count: u16,
    pub clip_count: u16,
    pub primitive_words: u16,
    /// Min x, y, z, max x, y, z, model space.
    pub bounds: [i16; 6],
    /// Total size of the blob.
    pub size: u32,
    pub strings_offset: u32,
    pub bones_offset: u32,
    pub vertices_offset: u32,
    pub primitives_offset: u32,
    pub materials_offset: u32,
    pub clips_offset: u32,
    pub strings_size: u32,
}

const _: () = assert!(core::mem::size_of::<Header>() == HEADER_SIZE);

impl Header {
    /// The header at the start of `bytes` (any alignment), or how short the blob is.
    pub fn read(bytes: &[u8]) -> Result<Header, TableError> {
        let Some(head) = bytes.get(..HEADER_SIZE) else {
            return Err(TableError::TooShort { needed: HEADER_SIZE, len: bytes.len() });
        };
        let h: Header = bytemuck::pod_read_unaligned(head);
        // Stored little-endian; swap on a big-endian host (the console and the tools are little-endian).
        Ok(if cfg!(target_endian = "little") { h } else { h.swapped() })
    }

    fn swapped(self) -> Header {
        Header {
            version: self.version.swap_bytes(),
            storage: self.storage.swap_bytes(),
            bone_count: self.bone_count.swap_bytes(),
            vertex_count: self.vertex_count.swap_bytes(),
            triangle_count: self.triangle_count.swap_bytes(),
            material_count: self.material_count.swap_bytes(),
            clip_count: self.clip_count.swap_bytes(),
            primitive_words: self.primitive_words.swap_bytes(),
            bounds: self.bounds.map(i16::swap_bytes),
            size: self.size.swap_bytes(),
            strings_offset: self.strings_offset.swap_bytes(),
            bones_offset: self.bones_offset.swap_bytes(),
            vertices_offset: self.vertices_offset.swap_bytes(),
            primitives_offset: self.primitives_offset.swap_bytes(),
            materials_offset: self.materials_offset.swap_bytes(),
            clips_offset: self.clips_offset.swap_bytes(),
            strings_size: self.strings_size.swap_bytes(),
            ..self
        }
    }
}

/// How a character's animation is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// Per-bone pose samples; each bone's vertex range goes through the GTE with the bone's matrix.
    RigidGte = 0,
    /// Per-frame model-space vertex positions; one object matrix for the whole character.
    BakedVertices = 1,
}

/// Why a blob, or a sample inside it, cannot be read. Offsets are byte offsets in the blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableError {
    /// The blob is shorter than the header or than the size the header declares.
    TooShort {
        needed: usize,
        len: usize,
    },
    BadMagic {
        found: [u8; 4],
    },
    UnsupportedVersion {
        found: u16,
    },
    BadStorage {
        found: u16,
    },
    /// A section (`what`) of `len` bytes at `offset` does not fit in a blob of `size` bytes.
    SectionOutOfBounds {
        what: &'static str,
        offset: usize,
        len: usize,
        size: usize,
    },
    /// A section does not start on a 4-byte boundary.
    Misaligned {
        what: &'static str,
        offset: usize,
    },
    /// Entry `index` of table `what` (at `offset`) holds `value`, which must be below `limit`.
    BadIndex {
        what: &'static str,
        index: usize,
        offset: usize,
        value: usize,
        limit: usize,
    },
    /// A bone's parent does not come before it (bones must be parent-first).
    ParentNotBefore {
        bone: usize,
        parent: usize,
        offset: usize,
    },
    /// A name is not valid UTF-8 or runs past the string section.
    BadName {
        offset: usize,
    },
    /// The clip's data do not match the storage (e.g. pose samples asked of a baked blob).
    WrongStorage {
        expected: Storage,
        found: Storage,
    },
    ClipOutOfRange {
        clip: usize,
        clips: usize,
    },
    FrameOutOfRange {
        clip: usize,
        frame: usize,
        frames: usize,
    },
    /// The output slice given to a decoder is too small.
    OutputTooSmall {
        needed: usize,
        len: usize,
    },
    /// Bad field in a clip's pose data header or channel descriptor.
    BadClipData {
        clip: usize,
        offset: usize,
        what: &'static str,
    },
    BadBitWidth {
        offset: usize,
        width: u32,
    },
    BitStreamEnd {
        offset: usize,
        bits_wanted: u32,
        bits_left: usize,
    },
    /// A decoded value does not fit its output type (or a baked bind coordinate is beyond +-30,720).
    ValueOverflow {
        offset: usize,
    },
    /// A baked frame payload has an unknown mode byte, runs past the blob or names a coordinate past
    /// the vertices; or a baked blob's decode lanes do not match its bind positions.
    BadFramePayload {
        offset: usize,
        what: &'static str,
    },
    /// A malformed word in the primitive stream (`what` it should have been).
    BadPrimitive {
        offset: usize,
        what: &'static str,
    },
    /// A malformed entry of the blend section (`what` it should have been).
    BadBlend {
        offset: usize,
        what: &'static str,
    },
    /// A malformed entry of the texture section (`what` it should have been).
    BadTexture {
        offset: usize,
        what: &'static str,
    },
    /// A malformed normal (`what` it should have been).
    BadNormal {
        offset: usize,
        what: &'static str,
    },
}

impl TableError {
    /// A number per error kind, 1 up in declaration order: what a game can keep or show (the
    /// verification records of the examples hold it).
    pub fn code(&self) -> u32 {
        match self {
            TableError::TooShort { .. } => 1,
            TableError::BadMagic { .. } => 2,
            TableError::UnsupportedVersion { .. } => 3,
            TableError::BadStorage { .. } => 4,
            TableError::SectionOutOfBounds { .. } => 5,
            TableError::Misaligned { .. } => 6,
            TableError::BadIndex { .. } => 7,
            TableError::ParentNotBefore { .. } => 8,
            TableError::BadName { .. } => 9,
            TableError::WrongStorage { .. } => 10,
            TableError::ClipOutOfRange { .. } => 11,
            TableError::FrameOutOfRange { .. } => 12,
            TableError::OutputTooSmall { .. } => 13,
            TableError::BadClipData { .. } => 14,
            TableError::BadBitWidth { .. } => 15,
            TableError::BitStreamEnd { .. } => 16,
            TableError::ValueOverflow { .. } => 17,
            TableError::BadFramePayload { .. } => 18,
            TableError::BadPrimitive { .. } => 19,
            TableError::BadBlend { .. } => 20,
            TableError::BadTexture { .. } => 21,
            TableError::BadNormal { .. } => 22,
        }
    }

    /// The byte offset in the blob the error points at, when it has one.
    pub fn offset(&self) -> Option<usize> {
        match *self {
            TableError::SectionOutOfBounds { offset, .. }
            | TableError::Misaligned { offset, .. }
            | TableError::BadIndex { offset, .. }
            | TableError::ParentNotBefore { offset, .. }
            | TableError::BadName { offset }
            | TableError::BadClipData { offset, .. }
            | TableError::BadBitWidth { offset, .. }
            | TableError::BitStreamEnd { offset, .. }
            | TableError::ValueOverflow { offset }
            | TableError::BadFramePayload { offset, .. }
            | TableError::BadPrimitive { offset, .. }
            | TableError::BadBlend { offset, .. }
            | TableError::BadTexture { offset, .. }
            | TableError::BadNormal { offset, .. } => Some(offset),
            _ => None,
        }
    }
}

/// A bone table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bone {
    pub parent: Option<u16>,
    pub first_vertex: u16,
    pub vertex_count: u16,
    pub name_offset: u16,
}

/// A clip table entry; `data` is its byte range in the blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clip {
    pub name_offset: u16,
    pub frame_count: u16,
    pub rate_hz: u16,
    pub event_count: u16,
    pub data_offset: u32,
    pub data_size: u32,
    /// Blob offset of the clip's events (0 without events).
    pub events_offset: u32,
}

/// A validated view of a compiled blob.
#[derive(Clone, Copy, Debug)]
pub struct Tables<'a> {
    bytes: &'a [u8],
    storage: Storage,
    bone_count: usize,
    vertex_count: usize,
    /// Triangles (a quad counts two), quads and runs of the primitive stream, counted by the parser.
    counts: primitives::StreamCounts,
    primitive_words: usize,
    material_count: usize,
    clip_count: usize,
    bounds: [[i16; 3]; 2],
    strings: (usize, usize),
    bones: usize,
    vertices: usize,
    primitives: usize,
    materials: usize,
    clips: usize,
    /// The blend section: offset, pair count, group count (all 0 without blended vertices).
    blend: blend::Section,
    /// The texture section (all 0 without textures).
    textures: textures::Section,
    /// The normals' offset (0 without).
    normals: usize,
    /// Normals packed ([`FLAG_NORMALS_PACKED`]): x | y << 16 a word, z in the vertex's fourth halfword.
    normals_packed: bool,
    /// The parents of the first [`PARENTS_KEPT`] bones (`NO_PARENT_KEPT` for a root), read once at
    /// parse: a renderer's per-frame loop looks them up with one byte load.
    parents: [u8; PARENTS_KEPT],
    /// The same parents as a pose chain walks them ([`Tables::parent_steps`]).
    parent_steps: [u8; PARENTS_KEPT],
    /// Every bone's vertex range is empty or holds three vertices or more (`Tables::ranges_in_triples`).
    ranges_in_triples: bool,
}

/// A [`Tables::parent_steps`] entry: the bone's parent is the previous bone's (RT and TR hold it).
pub const STEP_SAME_PARENT: u8 = 0;
/// A [`Tables::parent_steps`] entry: the bone is a root (the object is its parent).
pub const STEP_ROOT: u8 = u8::MAX;

/// A skeleton's [`Tables::parent_steps`]: made only by parsed tables, so every step names an
/// earlier bone (or the object, or the previous bone's parent, never for bone 0).
#[derive(Clone, Copy, Debug)]
pub struct ParentSteps<'a>(&'a [u8]);

impl<'a> ParentSteps<'a> {
    pub fn steps(&self) -> &[u8] {
        self.0
    }

    /// Steps that [`parent_step`] made from a parent-first skeleton's parents (as `Tables::parse`
    /// makes its own): every step names an earlier bone, the object or the previous bone's parent.
    pub(crate) fn of_parent_first(steps: &'a [u8]) -> Self {
        ParentSteps(steps)
    }
}

/// Bone `b`'s [`Tables::parent_steps`] entry from a parent-first skeleton's `parents` (0xFF: a
/// root), `b < parents.len()` and below 255.
#[inline]
pub(crate) fn parent_step(parents: &[u8], b: usize) -> u8 {
    match parents[b] {
        p if b > 0 && p == parents[b - 1] => STEP_SAME_PARENT,
        NO_PARENT_KEPT => STEP_ROOT,
        p => (b - p as usize) as u8,
    }
}

/// Bones whose parent [`Tables`] keeps (the renderer's limit).
const PARENTS_KEPT: usize = 64;
const NO_PARENT_KEPT: u8 = u8::MAX;

pub(crate) fn u16_at(bytes: &[u8], offset: usize) -> u16 {
    u16::from_le_bytes([bytes[offset], bytes[offset + 1]])
}
pub(crate) fn i16_at(bytes: &[u8], offset: usize) -> i16 {
    i16::from_le_bytes([bytes[offset], bytes[offset + 1]])
}
pub(crate) fn u32_at(bytes: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes([bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3]])
}

#[allow(clippy::manual_is_multiple_of)] // is_multiple_of is newer than the console toolchain
fn section(what: &'static str, offset: usize, len: usize, size: usize) -> Result<usize, TableError> {
    if offset % 4 != 0 {
        return Err(TableError::Misaligned { what, offset });
    }
    match offset.checked_add(len) {
        Some(end) if end <= size => Ok(offset),
        _ => Err(TableError::SectionOutOfBounds { what, offset, len, size }),
    }
}

/// The vertex count of an embedded blob at compile time, to size the renderer's scratch
/// (`static mut SCRATCH: Scratch<{ vertex_count_of(BLOB) }>`; with several characters the largest):
/// reads only the header's field, 0 for a blob too short to hold it. `render` still checks the
/// parsed tables against the scratch on every call.
pub const fn vertex_count_of(blob: &[u8]) -> usize {
    if blob.len() < HEADER_SIZE {
        return 0;
    }
    blob[10] as usize | (blob[11] as usize) << 8
}

/// The triangle count of an embedded blob at compile time (a quad counts 2), to size a packet
/// buffer: a flat triangle takes 5 words, a quad 6 for its two, so `5 * triangle_count_of(BLOB)`
/// words hold every triangle facing the camera at once. 0 for a blob too short to hold it.
pub const fn triangle_count_of(blob: &[u8]) -> usize {
    if blob.len() < HEADER_SIZE {
        return 0;
    }
    blob[12] as usize | (blob[13] as usize) << 8
}

impl<'a> Tables<'a> {
    /// Checks the header, every section's bounds and every cross-table index; reads nothing else.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, TableError> {
        let h = Header::read(bytes)?;
        if h.magic != MAGIC {
            return Err(TableError::BadMagic { found: h.magic });
        }
        if !(OLDEST_VERSION..=VERSION).contains(&h.version) && h.version != VERSION_TEXTURED {
            return Err(TableError::UnsupportedVersion { found: h.version });
        }
        let storage = match h.storage {
            0 => Storage::RigidGte,
            1 => Storage::BakedVertices,
            found => return Err(TableError::BadStorage { found }),
        };
        let size = h.size as usize;
        if size > bytes.len() || size < HEADER_SIZE {
            return Err(TableError::TooShort { needed: size.max(HEADER_SIZE), len: bytes.len() });
        }
        let bytes = &bytes[..size];
        let bone_count = h.bone_count as usize;
        let vertex_count = h.vertex_count as usize;
        let triangle_count = h.triangle_count as usize;
        let material_count = h.material_count as usize;
        let clip_count = h.clip_count as usize;
        let primitive_words = h.primitive_words as usize;
        let b = h.bounds;
        let bounds = [[b[0], b[1], b[2]], [b[3], b[4], b[5]]];
        let strings_size = h.strings_size as usize;
        let strings = section("strings", h.strings_offset as usize, strings_size, size)?;
        let bones = section("bones", h.bones_offset as usize, bone_count * BONE_SIZE, size)?;
        let lanes = match storage {
            Storage::RigidGte => 0,
            Storage::BakedVertices => baked::lane_bytes(vertex_count),
        };
        let vertices = section("vertices", h.vertices_offset as usize, vertex_count * VERTEX_SIZE + lanes, size)?;
        let primitives = section("primitives", h.primitives_offset as usize, 4 * primitive_words, size)?;
        let materials = section("materials", h.materials_offset as usize, material_count * MATERIAL_SIZE, size)?;
        let clips = section("clips", h.clips_offset as usize, clip_count * CLIP_SIZE, size)?;
        // Version 6 appended the blend section's 8 bytes to the header, version 7 the textures' 8.
        let header_size = match h.version {
            VERSION_TEXTURED => HEADER_SIZE_V7,
            6 => HEADER_SIZE_V6,
            _ => HEADER_SIZE,
        };
        if size < header_size {
            return Err(TableError::TooShort { needed: header_size, len: size });
        }
        let blend = if h.version >= 6 { blend::Section::read(bytes, storage, size)? } else { blend::Section::default() };
        let mut tables = Self {
            bytes,
            storage,
            bone_count,
            vertex_count,
            counts: primitives::StreamCounts::default(),
            primitive_words,
            material_count,
            clip_count,
            bounds,
            strings: (strings, strings_size),
            bones,
            vertices,
            primitives,
            materials,
            clips,
            blend,
            textures: textures::Section::default(),
            normals: 0,
            normals_packed: false,
            parents: [NO_PARENT_KEPT; PARENTS_KEPT],
            parent_steps: [STEP_ROOT; PARENTS_KEPT],
            ranges_in_triples: false,
        };
        if h.version >= VERSION_TEXTURED {
            let (at, uvs) = (u32_at(bytes, TEXTURES_AT) as usize, u32_at(bytes, UVS_AT) as usize);
            tables.textures = textures::Section::read(bytes, at, uvs, vertex_count, materials, material_count)?;
            let flags = u32_at(bytes, FLAGS_AT);
            if flags & !FLAG_NORMALS_PACKED != 0 {
                return Err(TableError::BadNormal { offset: FLAGS_AT, what: "flags of bit 0 (normals packed) alone" });
            }
            let normals = u32_at(bytes, NORMALS_AT) as usize;
            if normals != 0 {
                if storage != Storage::RigidGte {
                    return Err(TableError::BadNormal { offset: NORMALS_AT, what: "normals in a rigid-gte blob only" });
                }
                tables.normals_packed = flags & FLAG_NORMALS_PACKED != 0;
                let stride = if tables.normals_packed { 4 } else { VERTEX_SIZE };
                tables.normals = section("normals", normals, vertex_count * stride, size)?;
                for v in 0..vertex_count {
                    let at = tables.normals + v * stride;
                    // Unpacked: z beside x and y, then a zero halfword.
                    if !tables.normals_packed && i16_at(bytes, at + 6) != 0 {
                        return Err(TableError::BadNormal { offset: at + 6, what: "a zero fourth halfword" });
                    }
                    // i64: three coordinates of -32768 square to more than an i32 holds.
                    let n = tables.vertex_normal(v);
                    let len2 = [n.x, n.y, n.z].map(|c| c as i64 * c as i64).iter().sum::<i64>();
                    if !(NORMAL_LENGTH2_MIN..=NORMAL_LENGTH2_MAX).contains(&len2) {
                        return Err(TableError::BadNormal { offset: at, what: "a normal of length 4096 (FP12)" });
                    }
                }
            } else if flags != 0 {
                return Err(TableError::BadNormal { offset: FLAGS_AT, what: "no flags without normals" });
            }
        }
        tables.check_bones()?;
        tables.ranges_in_triples = (0..bone_count).all(|b| matches!(tables.bone(b).vertex_count, 0 | 3..));
        blend::check(&tables)?;
        let mut parents = [NO_PARENT_KEPT; PARENTS_KEPT];
        for (b, kept) in parents.iter_mut().enumerate().take(bone_count) {
            // Parent-first (checked above): a kept bone's parent is below 63.
            *kept = tables.bone(b).parent.map_or(NO_PARENT_KEPT, |p| p as u8);
        }
        tables.parents = parents;
        for b in 0..bone_count.min(PARENTS_KEPT) {
            tables.parent_steps[b] = parent_step(&parents, b);
        }
        if storage == Storage::BakedVertices {
            baked::check_lanes(&tables, vertices + vertex_count * VERTEX_SIZE)?;
        }
        tables.counts = primitives::check(
            bytes,
            primitives,
            primitive_words,
            vertex_count,
            material_count,
            |m| tables.material(m),
        )?;
        if tables.counts.triangles != triangle_count {
            return Err(TableError::BadPrimitive {
                offset: 12,
                what: "triangle count: the stream's triangles, a quad counting two",
            });
        }
        tables.check_clips()?;
        Ok(tables)
    }

    fn check_bones(&self) -> Result<(), TableError> {
        for i in 0..self.bone_count {
            let offset = self.bones + i * BONE_SIZE;
            let bone = self.bone(i);
            if let Some(parent) = bone.parent {
                if parent as usize >= i {
                    return Err(TableError::ParentNotBefore { bone: i, parent: parent as usize, offset });
                }
            }
            let end = bone.first_vertex as usize + bone.vertex_count as usize;
            if end > self.vertex_count {
                return Err(TableError::BadIndex {
                    what: "bone vertex range",
                    index: i,
                    offset: offset + 2,
                    value: end,
                    limit: self.vertex_count + 1,
                });
            }
            self.name(bone.name_offset).map_err(|_| TableError::BadName { offset: offset + 6 })?;
        }
        Ok(())
    }

    fn check_clips(&self) -> Result<(), TableError> {
        for i in 0..self.clip_count {
            let offset = self.clips + i * CLIP_SIZE;
            let clip = self.clip_entry(i);
            self.name(clip.name_offset).map_err(|_| TableError::BadName { offset })?;
            if clip.frame_count == 0 {
                return Err(TableError::BadClipData { clip: i, offset: offset + 2, what: "frame count is 0" });
            }
            if clip.rate_hz == 0 {
                return Err(TableError::BadClipData { clip: i, offset: offset + 4, what: "sample rate is 0" });
            }
            section("clip data", clip.data_offset as usize, clip.data_size as usize, self.bytes.len())?;
            self.check_events(i, offset, &clip)?;
            match self.storage {
                Storage::RigidGte => pose::check_clip(self, i, &clip)?,
                Storage::BakedVertices => baked::check_clip(self, i, &clip)?,
            }
        }
        Ok(())
    }

    /// Events: inside the blob, frames within the clip, names in the string section. A clip without
    /// events must say offset 0 (nothing is left undefined).
    fn check_events(&self, clip_index: usize, entry: usize, clip: &Clip) -> Result<(), TableError> {
        let count = clip.event_count as usize;
        if count == 0 {
            if clip.events_offset != 0 {
                return Err(TableError::BadClipData { clip: clip_index, offset: entry + 16, what: "events offset without events" });
            }
            return Ok(());
        }
        let at = section("clip events", clip.events_offset as usize, count * EVENT_SIZE, self.bytes.len())?;
        for e in 0..count {
            let o = at + e * EVENT_SIZE;
            let frame = u16_at(self.bytes, o) as usize;
            if frame >= clip.frame_count as usize {
                return Err(TableError::BadIndex { what: "event frame", index: e, offset: o, value: frame, limit: clip.frame_count as usize });
            }
            self.name(u16_at(self.bytes, o + 2)).map_err(|_| TableError::BadName { offset: o + 2 })?;
        }
        Ok(())
    }

    /// Event `index` of clip `clip`: name and frame (`None` out of range).
    pub fn event(&self, clip: usize, index: usize) -> Option<(&'a str, u16)> {
        let entry = self.clip(clip).ok()?;
        if index >= entry.event_count as usize {
            return None;
        }
        let o = entry.events_offset as usize + index * EVENT_SIZE;
        // Checked by `parse`: inside the blob, a valid name.
        let name = self.name(u16_at(self.bytes, o + 2)).ok()?;
        Some((name, u16_at(self.bytes, o)))
    }

    /// Events of clip `clip` (0 for a clip out of range).
    pub fn event_count(&self, clip: usize) -> usize {
        self.clip(clip).map_or(0, |c| c.event_count as usize)
    }

    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
    pub fn storage(&self) -> Storage {
        self.storage
    }
    pub fn bone_count(&self) -> usize {
        self.bone_count
    }
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }
    /// Triangles of the primitive stream, a quad counting two.
    pub fn triangle_count(&self) -> usize {
        self.counts.triangles
    }
    /// Quads of the primitive stream (in quad runs and strips).
    pub fn quad_count(&self) -> usize {
        self.counts.quads
    }
    /// Runs of the primitive stream.
    pub fn run_count(&self) -> usize {
        self.counts.runs
    }
    /// Words of the primitive stream, its end word included.
    pub fn primitive_words(&self) -> usize {
        self.primitive_words
    }
    pub fn material_count(&self) -> usize {
        self.material_count
    }
    pub fn clip_count(&self) -> usize {
        self.clip_count
    }
    /// `[min, max]` corners of the model-space box covering every pose.
    pub fn bounds(&self) -> [[i16; 3]; 2] {
        self.bounds
    }

    /// A name from the string section.
    pub fn name(&self, name_offset: u16) -> Result<&'a str, TableError> {
        let (start, size) = self.strings;
        let at = name_offset as usize;
        if at >= size {
            return Err(TableError::BadName { offset: start + at });
        }
        let len = self.bytes[start + at] as usize;
        if at + 1 + len > size {
            return Err(TableError::BadName { offset: start + at });
        }
        core::str::from_utf8(&self.bytes[start + at + 1..start + at + 1 + len])
            .map_err(|_| TableError::BadName { offset: start + at })
    }

    /// Bone `index` (< `bone_count()`; checked by `parse`, panics otherwise like slice indexing).
    /// Whether every bone's vertex range is empty or holds three vertices or more (read once at
    /// parse): the lit projection's pass takes such tables whole (`render::light::project_light_rigid`).
    pub fn ranges_in_triples(&self) -> bool {
        self.ranges_in_triples
    }

    pub fn bone(&self, index: usize) -> Bone {
        assert!(index < self.bone_count);
        let o = self.bones + index * BONE_SIZE;
        let parent = u16_at(self.bytes, o);
        Bone {
            parent: if parent == NO_PARENT { None } else { Some(parent) },
            first_vertex: u16_at(self.bytes, o + 2),
            vertex_count: u16_at(self.bytes, o + 4),
            name_offset: u16_at(self.bytes, o + 6),
        }
    }

    /// Every bone's parent as a chain of composes walks them, one byte a bone: [`STEP_SAME_PARENT`]
    /// when it is the previous bone's parent, [`STEP_ROOT`] for a root, else how many bones back
    /// its parent is (1..=63). `None` above the 64 bones whose parents are kept.
    pub fn parent_steps(&self) -> Option<ParentSteps<'_>> {
        self.parent_steps.get(..self.bone_count).map(ParentSteps)
    }

    /// Bone `index`'s parent (`None` for a root, or past the bones): one halfword read, for the
    /// per-frame loops that want nothing else of the bone.
    #[inline]
    pub fn parent(&self, index: usize) -> Option<u16> {
        match self.parents.get(index) {
            Some(&p) => (p != NO_PARENT_KEPT).then_some(p as u16),
            None if index < self.bone_count => self.bone(index).parent,
            None => None,
        }
    }

    /// Vertex `index`: bone-local (rigid-gte) or model-space bind position (baked-vertices).
    pub fn vertex(&self, index: usize) -> [i16; 3] {
        assert!(index < self.vertex_count);
        let o = self.vertices + index * VERTEX_SIZE;
        [i16_at(self.bytes, o), i16_at(self.bytes, o + 2), i16_at(self.bytes, o + 4)]
    }

    /// The primitive stream, one triangle or quad at a time.
    pub fn primitives(&self) -> primitives::Primitives<'a> {
        primitives::Primitives::new(self.bytes, self.primitives)
    }

    /// Base colour of material `index` as 8-bit RGB.
    /// Textures of the character (0 without).
    pub fn texture_count(&self) -> usize {
        self.textures.count
    }

    /// Texture `index`: its depth, size, default places and data (checked at parse; an index past the
    /// count is a `BadIndex`).
    pub fn texture(&self, index: usize) -> Result<textures::Texture<'a>, TableError> {
        if index >= self.textures.count {
            return Err(TableError::BadIndex {
                what: "texture",
                index,
                offset: self.textures.entries,
                value: index,
                limit: self.textures.count,
            });
        }
        self.textures.entry(self.bytes, index)
    }

    /// The texture material `index` draws with (None: its colour alone).
    pub fn material_texture(&self, index: usize) -> Option<usize> {
        let byte = *self.bytes.get(self.materials + index * MATERIAL_SIZE + 3)?;
        (byte != 0 && index < self.material_count && self.textures.count > 0).then(|| byte as usize - 1)
    }

    /// Vertex `index`'s texture coordinates, `u | v << 8` (0 without textures or past the vertices).
    #[inline(always)]
    pub fn vertex_uv(&self, index: usize) -> u32 {
        if self.textures.count == 0 || index >= self.vertex_count {
            return 0;
        }
        u32_at(self.bytes, self.textures.uvs + 4 * index)
    }

    /// Whether the blob holds a normal per vertex (`import --lighting`), for the light stage.
    pub fn has_normals(&self) -> bool {
        self.normals != 0
    }

    /// Vertex `index`'s normal, FP12 in its bone's space (zero without normals or past the vertices).
    #[inline(always)]
    pub fn vertex_normal(&self, index: usize) -> crate::math::Vec3i16 {
        if self.normals == 0 || index >= self.vertex_count {
            return crate::math::Vec3i16::new(0, 0, 0);
        }
        let (at, z) = match self.normals_packed {
            true => (self.normals + 4 * index, self.vertices + index * VERTEX_SIZE + 6),
            false => (self.normals + index * VERTEX_SIZE, self.normals + index * VERTEX_SIZE + 4),
        };
        crate::math::Vec3i16::new(i16_at(self.bytes, at), i16_at(self.bytes, at + 2), i16_at(self.bytes, z))
    }

    /// Packed normals' words, `x | y << 16`, one a vertex (each z the high half of its vertex's VZ
    /// word), when the blob holds packed normals and lies 4-aligned in memory (the console's embedded
    /// blobs do): what the lit passes load.
    pub fn normal_xy_words(&self) -> Option<&'a [u32]> {
        if self.normals == 0 || !self.normals_packed {
            return None;
        }
        crate::bytes::aligned_words(self.bytes, self.normals, self.vertex_count)
    }

    /// Every vertex's UV word, when the blob holds textures and lies 4-aligned in memory.
    pub fn uv_words(&self) -> Option<&'a [u32]> {
        if self.textures.count == 0 {
            return None;
        }
        crate::bytes::aligned_words(self.bytes, self.textures.uvs, self.vertex_count)
    }

    /// The UV words' blob offset (one `u32` per vertex, 4-aligned in the blob; 0 without textures).
    pub fn uvs_offset(&self) -> usize {
        self.textures.uvs
    }

    pub fn material(&self, index: usize) -> [u8; 3] {
        assert!(index < self.material_count);
        let o = self.materials + index * MATERIAL_SIZE;
        [self.bytes[o], self.bytes[o + 1], self.bytes[o + 2]]
    }

    fn clip_entry(&self, index: usize) -> Clip {
        let o = self.clips + index * CLIP_SIZE;
        Clip {
            name_offset: u16_at(self.bytes, o),
            frame_count: u16_at(self.bytes, o + 2),
            rate_hz: u16_at(self.bytes, o + 4),
            event_count: u16_at(self.bytes, o + 6),
            data_offset: u32_at(self.bytes, o + 8),
            data_size: u32_at(self.bytes, o + 12),
            events_offset: u32_at(self.bytes, o + 16),
        }
    }

    pub fn clip(&self, index: usize) -> Result<Clip, TableError> {
        if index >= self.clip_count {
            return Err(TableError::ClipOutOfRange { clip: index, clips: self.clip_count });
        }
        Ok(self.clip_entry(index))
    }

    /// Index of the clip called `name`, if any.
    pub fn find_clip(&self, name: &str) -> Option<usize> {
        (0..self.clip_count).find(|&i| self.name(self.clip_entry(i).name_offset) == Ok(name))
    }

    fn frame_clip(&self, clip: usize, frame: usize, expected: Storage) -> Result<Clip, TableError> {
        if self.storage != expected {
            return Err(TableError::WrongStorage { expected, found: self.storage });
        }
        let entry = self.clip(clip)?;
        if frame >= entry.frame_count as usize {
            return Err(TableError::FrameOutOfRange { clip, frame, frames: entry.frame_count as usize });
        }
        Ok(entry)
    }

    /// Decodes every bone's parent-relative pose at `frame` of a rigid-gte clip into `out[..bone_count]`.
    pub fn decode_pose(&self, clip: usize, frame: usize, out: &mut [BoneSample]) -> Result<(), TableError> {
        let entry = self.frame_clip(clip, frame, Storage::RigidGte)?;
        if out.len() < self.bone_count {
            return Err(TableError::OutputTooSmall { needed: self.bone_count, len: out.len() });
        }
        pose::decode(self, clip, &entry, frame, &mut out[..self.bone_count])
    }

    /// Decodes the model-space positions of every vertex at `frame` of a baked clip into `out[..vertex_count]`.
    pub fn decode_baked_frame(&self, clip: usize, frame: usize, out: &mut [[i16; 3]]) -> Result<(), TableError> {
        let entry = self.frame_clip(clip, frame, Storage::BakedVertices)?;
        if out.len() < self.vertex_count {
            return Err(TableError::OutputTooSmall { needed: self.vertex_count, len: out.len() });
        }
        let at = entry.data_offset as usize + 4 * frame;
        let payload = u32_at(self.bytes, at) as usize;
        decode_baked_frame_payload(self, payload, &mut out[..self.vertex_count])
    }

    /// Blob offset of the bone table (the renderer reads the vertex ranges word by word).
    pub(crate) fn bones_offset(&self) -> usize {
        self.bones
    }

    pub(crate) fn vertices_offset(&self) -> usize {
        self.vertices
    }

    /// Blob offset of the primitive stream (the renderer reads it word by word).
    pub(crate) fn primitives_offset(&self) -> usize {
        self.primitives
    }
}

#[cfg(test)]
mod tests;
