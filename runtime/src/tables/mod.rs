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
//! # Layout, version 1 (all little-endian; every section starts 4-byte aligned)
//! ```text
//! header, 64 bytes
//!   0 [u8;4] magic "PXSK"             4 u16 version (1)           6 u16 storage: 0 rigid-gte, 1 baked-vertices
//!   8 u16 bone count                 10 u16 vertex count         12 u16 triangle count
//!  14 u16 material count             16 u16 clip count           18 u16 flags (0)
//!  20 i16[6] bounds: min x,y,z, max x,y,z (model space, cover the bind pose and every sample of every clip)
//!  32 u32 total size of the blob     36 u32 strings offset       40 u32 bones offset
//!  44 u32 vertices offset            48 u32 triangles offset     52 u32 materials offset
//!  56 u32 clips offset               60 u32 strings size
//! strings: each name is u8 length + UTF-8 bytes; names are referenced by their offset in this section
//! bones, 8 bytes each, parent-first:  u16 parent (0xFFFF = root), u16 first vertex, u16 vertex count, u16 name
//!   rigid-gte: bone b's vertices are the contiguous range [first, first+count), in b's local space.
//!   baked-vertices: ranges are empty (the skeleton is kept for names and attachment only).
//! vertices, 8 bytes each: i16 x, y, z, i16 0 (the GTE's SVECTOR shape)
//!   rigid-gte: bone-local positions; baked-vertices: model-space bind positions.
//! triangles, 8 bytes each: u16 a, b, c (vertex indices), u8 material, u8 flags
//!   flags bit 0 (QUAD_WITH_NEXT): this triangle (a, b, c) and the next one, (a, c, d) with the same
//!   material and flags 0, are one planar quad: the renderer culls both by this triangle's NCLIP and
//!   draws them as one four-point polygon. Other bits are 0. A reader may ignore the bit (the two
//!   triangles then draw the same area).
//! materials, 4 bytes each: u8 r, g, b (base colour), u8 0
//! clips, 16 bytes each: u16 name, u16 frame count, u16 sample rate (Hz), u16 flags (0),
//!                       u32 data offset, u32 data size
//! ```
//! The clip data of a rigid-gte blob are pose samples ([`pose`] documents them); those of a
//! baked-vertices blob are a table of `u32` frame offsets pointing at shared frame payloads ([`baked`]).

mod baked;
mod bits;
mod pose;

pub use baked::{decode_baked_frame_payload, BAKED_DELTA_ESCAPE, BAKED_DELTA_SCALE, FRAME_DELTA, FRAME_RAW};
pub use bits::BitReader;
pub use pose::{
    BoneSample, ChannelDescriptor, ClipFrames, ComponentCursor, COMPONENTS_PER_BONE, CHANNELS_PER_BONE, CHANNEL_ANIMATED, CHANNEL_DESCRIPTOR_SIZE, CLIP_POSE_HEADER_SIZE,
    COMPONENT_WIDTH_BITS, ROTATION_FRAC, ROTATION_INDEX_BITS, SCALE_FRAC, TRANSLATION_FRAC,
};

/// The four bytes every blob starts with.
pub const MAGIC: [u8; 4] = *b"PXSK";
/// The layout version this reader understands.
pub const VERSION: u16 = 1;
pub const HEADER_SIZE: usize = 64;
pub const BONE_SIZE: usize = 8;
pub const VERTEX_SIZE: usize = 8;
pub const TRIANGLE_SIZE: usize = 8;
/// Triangle flag: this triangle and the next form one planar quad (see the layout above).
pub const QUAD_WITH_NEXT: u8 = 1;
pub const MATERIAL_SIZE: usize = 4;
pub const CLIP_SIZE: usize = 16;
/// Parent value of a root bone.
pub const NO_PARENT: u16 = 0xFFFF;

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
    /// A decoded value does not fit its output type.
    ValueOverflow {
        offset: usize,
    },
    /// A baked frame payload has an unknown mode byte or runs past the blob.
    BadFramePayload {
        offset: usize,
        what: &'static str,
    },
    /// Triangle `index` (flags byte at `offset`) has unknown flag bits, or is marked as the first half
    /// of a quad that the next triangle does not complete (it must be (a, c, d) with the same
    /// material and no flags; the last triangle cannot be marked).
    BadQuad {
        index: usize,
        offset: usize,
    },
}

/// A bone table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bone {
    pub parent: Option<u16>,
    pub first_vertex: u16,
    pub vertex_count: u16,
    pub name_offset: u16,
}

/// A triangle: three vertex indices and a material index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Triangle {
    pub vertices: [u16; 3],
    pub material: u8,
    /// [`QUAD_WITH_NEXT`] or 0.
    pub flags: u8,
}

/// A clip table entry; `data` is its byte range in the blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clip {
    pub name_offset: u16,
    pub frame_count: u16,
    pub rate_hz: u16,
    pub data_offset: u32,
    pub data_size: u32,
}

/// A validated view of a compiled blob.
#[derive(Clone, Copy, Debug)]
pub struct Tables<'a> {
    bytes: &'a [u8],
    storage: Storage,
    bone_count: usize,
    vertex_count: usize,
    triangle_count: usize,
    /// Triangles that open a quad (`QUAD_WITH_NEXT`), counted by the parser.
    quad_count: usize,
    material_count: usize,
    clip_count: usize,
    bounds: [[i16; 3]; 2],
    strings: (usize, usize),
    bones: usize,
    vertices: usize,
    triangles: usize,
    materials: usize,
    clips: usize,
}

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

impl<'a> Tables<'a> {
    /// Checks the header, every section's bounds and every cross-table index; reads nothing else.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, TableError> {
        if bytes.len() < HEADER_SIZE {
            return Err(TableError::TooShort { needed: HEADER_SIZE, len: bytes.len() });
        }
        let magic = [bytes[0], bytes[1], bytes[2], bytes[3]];
        if magic != MAGIC {
            return Err(TableError::BadMagic { found: magic });
        }
        let version = u16_at(bytes, 4);
        if version != VERSION {
            return Err(TableError::UnsupportedVersion { found: version });
        }
        let storage = match u16_at(bytes, 6) {
            0 => Storage::RigidGte,
            1 => Storage::BakedVertices,
            found => return Err(TableError::BadStorage { found }),
        };
        let size = u32_at(bytes, 32) as usize;
        if size > bytes.len() || size < HEADER_SIZE {
            return Err(TableError::TooShort { needed: size.max(HEADER_SIZE), len: bytes.len() });
        }
        let bytes = &bytes[..size];
        let bone_count = u16_at(bytes, 8) as usize;
        let vertex_count = u16_at(bytes, 10) as usize;
        let triangle_count = u16_at(bytes, 12) as usize;
        let material_count = u16_at(bytes, 14) as usize;
        let clip_count = u16_at(bytes, 16) as usize;
        let mut bounds = [[0i16; 3]; 2];
        for (i, b) in bounds.iter_mut().flatten().enumerate() {
            *b = i16_at(bytes, 20 + 2 * i);
        }
        let strings_size = u32_at(bytes, 60) as usize;
        let strings = section("strings", u32_at(bytes, 36) as usize, strings_size, size)?;
        let bones = section("bones", u32_at(bytes, 40) as usize, bone_count * BONE_SIZE, size)?;
        let vertices = section("vertices", u32_at(bytes, 44) as usize, vertex_count * VERTEX_SIZE, size)?;
        let triangles = section("triangles", u32_at(bytes, 48) as usize, triangle_count * TRIANGLE_SIZE, size)?;
        let materials = section("materials", u32_at(bytes, 52) as usize, material_count * MATERIAL_SIZE, size)?;
        let clips = section("clips", u32_at(bytes, 56) as usize, clip_count * CLIP_SIZE, size)?;
        let mut tables = Self {
            bytes,
            storage,
            bone_count,
            vertex_count,
            triangle_count,
            quad_count: 0,
            material_count,
            clip_count,
            bounds,
            strings: (strings, strings_size),
            bones,
            vertices,
            triangles,
            materials,
            clips,
        };
        tables.check_bones()?;
        tables.quad_count = tables.check_triangles()?;
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

    /// Returns the number of quads.
    fn check_triangles(&self) -> Result<usize, TableError> {
        let mut quads = 0;
        for i in 0..self.triangle_count {
            let offset = self.triangles + i * TRIANGLE_SIZE;
            let t = self.triangle(i);
            for (k, v) in t.vertices.iter().enumerate() {
                if *v as usize >= self.vertex_count {
                    return Err(TableError::BadIndex {
                        what: "triangle vertex",
                        index: i,
                        offset: offset + 2 * k,
                        value: *v as usize,
                        limit: self.vertex_count,
                    });
                }
            }
            if t.material as usize >= self.material_count {
                return Err(TableError::BadIndex {
                    what: "triangle material",
                    index: i,
                    offset: offset + 6,
                    value: t.material as usize,
                    limit: self.material_count,
                });
            }
            if t.flags & !QUAD_WITH_NEXT != 0 || (t.flags == QUAD_WITH_NEXT && !self.completes_quad(i, t)) {
                return Err(TableError::BadQuad { index: i, offset: offset + 7 });
            }
            quads += t.flags as usize;
        }
        Ok(quads)
    }

    /// Whether triangle `i + 1` is the second half of the quad that triangle `i` (`first`) opens.
    fn completes_quad(&self, i: usize, first: Triangle) -> bool {
        if i + 1 >= self.triangle_count {
            return false;
        }
        let second = self.triangle(i + 1);
        let [a, _, c] = first.vertices;
        second.vertices[0] == a && second.vertices[1] == c && second.material == first.material && second.flags == 0
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
            match self.storage {
                Storage::RigidGte => pose::check_clip(self, i, &clip)?,
                Storage::BakedVertices => baked::check_clip(self, i, &clip)?,
            }
        }
        Ok(())
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
    pub fn triangle_count(&self) -> usize {
        self.triangle_count
    }
    /// Quads among the triangles: pairs marked [`QUAD_WITH_NEXT`] (each counts once here and as two
    /// triangles in [`triangle_count`](Self::triangle_count)).
    pub fn quad_count(&self) -> usize {
        self.quad_count
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

    /// Vertex `index`: bone-local (rigid-gte) or model-space bind position (baked-vertices).
    pub fn vertex(&self, index: usize) -> [i16; 3] {
        assert!(index < self.vertex_count);
        let o = self.vertices + index * VERTEX_SIZE;
        [i16_at(self.bytes, o), i16_at(self.bytes, o + 2), i16_at(self.bytes, o + 4)]
    }

    pub fn triangle(&self, index: usize) -> Triangle {
        assert!(index < self.triangle_count);
        let o = self.triangles + index * TRIANGLE_SIZE;
        Triangle {
            vertices: [u16_at(self.bytes, o), u16_at(self.bytes, o + 2), u16_at(self.bytes, o + 4)],
            material: self.bytes[o + 6],
            flags: self.bytes[o + 7],
        }
    }

    /// Base colour of material `index` as 8-bit RGB.
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
            data_offset: u32_at(self.bytes, o + 8),
            data_size: u32_at(self.bytes, o + 12),
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

    /// Blob offset of the triangle table (the renderer reads it word by word).
    pub(crate) fn triangles_offset(&self) -> usize {
        self.triangles
    }

    /// Blob offset of the material table (the renderer reads each colour as one word).
    pub(crate) fn materials_offset(&self) -> usize {
        self.materials
    }
}

#[cfg(test)]
mod tests;
