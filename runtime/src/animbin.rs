//! ANIMBIN clip files: validation and zero-copy access (the AnimationManager).
//!
//! `AnimationManager::parse` walks the whole file once, checks everything the original loader did not,
//! and keeps only byte offsets into the caller's slice: no heap, no copy of the keys. After a successful
//! parse every accessor reads inside validated bounds, so playback never re-checks the file.
//!
//! Layout (all little-endian, packed): header `"ANIMBIN"`, `u8 version`, `u8 numAnimations`; per clip
//! `char[32] name`, `u32 flags` (bit 0 = looping), `u16 length`, `u16 numTracks`, `u16 numMarkers`, then
//! the tracks (`u8 type`, `u8 jointId`, `u16 numKeys`, keys), then the markers (`char[32]`, `u16 frame`).
//! A key is `u16 frame`, `u8 keyType`, then `i16 w,x,y,z` (rotation, FP12) or `i32 x,y,z` (translation,
//! FP12).
//!
//! Choices beyond the format document (each one has a test):
//! - A name that fills all 32 bytes is accepted as an unterminated name of 32 bytes: the field is
//!   fixed-width, and readers here return byte slices, never C strings.
//! - A track may mix rotation and translation keys; playback follows each key type separately. Two
//!   tracks animating the same channel (joint and key type) of one clip are rejected.
//! - Within a track, the keys of one type must have strictly increasing frames, all below `length`
//!   (frames run from 0 to `length - 1`, as the original exporter bakes them); markers too.
//! - `length` 0 is rejected (a looping clip of no length cannot wrap). Version must be 1.
//! - Bytes after the last clip are ignored (data loaded from CD is padded to whole sectors).

use crate::bytes;

/// The file's first seven bytes.
pub const MAGIC: &[u8; 7] = b"ANIMBIN";
/// The only version the format defines.
pub const VERSION: u8 = 1;
/// Width of clip and marker names.
pub const NAME_BYTES: usize = 32;

const HEADER_BYTES: usize = 9;
const CLIP_HEADER_BYTES: usize = NAME_BYTES + 4 + 2 + 2 + 2;
const TRACK_HEADER_BYTES: usize = 4;
const KEY_HEADER_BYTES: usize = 3;
const ROTATION_PAYLOAD_BYTES: usize = 8;
const TRANSLATION_PAYLOAD_BYTES: usize = 12;
const MARKER_BYTES: usize = NAME_BYTES + 2;

/// Capacity of the original runtime (`animation.hh`): the default profile.
pub mod original {
    pub const ANIMATIONS: usize = 5;
    pub const TRACKS: usize = 50;
    pub const KEYS: usize = 30;
    pub const MARKERS: usize = 5;
}

/// A larger profile for games that need more than the original arrays held.
pub mod large {
    pub const ANIMATIONS: usize = 32;
    /// One track per channel of a 128-bone skeleton (rotation and translation).
    pub const TRACKS: usize = 256;
    pub const KEYS: usize = 2048;
    pub const MARKERS: usize = 32;
}

/// What a key carries, from its `keyType` byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    Rotation = 0,
    Translation = 1,
}

impl KeyType {
    fn from_byte(b: u8) -> Option<KeyType> {
        match b {
            0 => Some(KeyType::Rotation),
            1 => Some(KeyType::Translation),
            _ => None,
        }
    }

    /// Size of the payload after the 3-byte key header.
    pub const fn payload_bytes(self) -> usize {
        match self {
            KeyType::Rotation => ROTATION_PAYLOAD_BYTES,
            KeyType::Translation => TRANSLATION_PAYLOAD_BYTES,
        }
    }
}

/// What is wrong with a file. Clip, track, key and marker numbers count from 0 in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file ends inside a field that needs `needed` bytes from the error offset.
    Truncated { needed: u32, available: u32 },
    /// The first seven bytes are not `ANIMBIN`.
    BadMagic,
    UnsupportedVersion { found: u8 },
    /// `numAnimations` exceeds the capacity profile.
    TooManyAnimations { count: u32, max: u32 },
    /// A clip of length 0.
    ZeroLength { clip: u16 },
    TooManyTracks { clip: u16, count: u32, max: u32 },
    TooManyMarkers { clip: u16, count: u32, max: u32 },
    /// A track with no key (the original read `keys[-1]`).
    EmptyTrack { clip: u16, track: u16 },
    TooManyKeys { clip: u16, track: u16, count: u32, max: u32 },
    /// `jointId` is not a bone of the skeleton the file is loaded for.
    JointOutOfRange { clip: u16, track: u16, joint: u8, bones: u32 },
    /// A second track animates the same joint with the same key type.
    DuplicateChannel { clip: u16, track: u16, joint: u8, key_type: KeyType },
    /// A `keyType` other than 0 (rotation) or 1 (translation).
    UnknownKeyType { clip: u16, track: u16, key: u16, found: u8 },
    /// A key at or past the clip's length.
    KeyFrameOutOfRange { clip: u16, track: u16, key: u16, frame: u16, length: u16 },
    /// A key whose frame is not after the previous key of the same type in its track.
    KeyFrameOrder { clip: u16, track: u16, key: u16, frame: u16, previous: u16 },
    /// A marker at or past the clip's length: it could never be reached.
    MarkerFrameOutOfRange { clip: u16, marker: u16, frame: u16, length: u16 },
}

/// A parse error: what is wrong and the byte offset in the file of the field at fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error {
    pub offset: u32,
    pub kind: ErrorKind,
}

impl Error {
    /// A stable number per kind, for the verification record and other places without text.
    pub fn code(&self) -> u32 {
        match self.kind {
            ErrorKind::Truncated { .. } => 1,
            ErrorKind::BadMagic => 2,
            ErrorKind::UnsupportedVersion { .. } => 3,
            ErrorKind::TooManyAnimations { .. } => 4,
            ErrorKind::ZeroLength { .. } => 5,
            ErrorKind::TooManyTracks { .. } => 6,
            ErrorKind::TooManyMarkers { .. } => 7,
            ErrorKind::EmptyTrack { .. } => 8,
            ErrorKind::TooManyKeys { .. } => 9,
            ErrorKind::JointOutOfRange { .. } => 10,
            ErrorKind::DuplicateChannel { .. } => 11,
            ErrorKind::UnknownKeyType { .. } => 12,
            ErrorKind::KeyFrameOutOfRange { .. } => 13,
            ErrorKind::KeyFrameOrder { .. } => 14,
            ErrorKind::MarkerFrameOutOfRange { .. } => 15,
        }
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ANIMBIN offset {}: ", self.offset)?;
        match self.kind {
            ErrorKind::Truncated { needed, available } => {
                write!(f, "file ends early: {needed} bytes needed, {available} left")
            }
            ErrorKind::BadMagic => write!(f, "magic is not \"ANIMBIN\""),
            ErrorKind::UnsupportedVersion { found } => write!(f, "version {found}, expected {VERSION}"),
            ErrorKind::TooManyAnimations { count, max } => {
                write!(f, "{count} animations, the capacity profile allows {max}")
            }
            ErrorKind::ZeroLength { clip } => write!(f, "clip {clip} has length 0"),
            ErrorKind::TooManyTracks { clip, count, max } => {
                write!(f, "clip {clip} has {count} tracks, the capacity profile allows {max}")
            }
            ErrorKind::TooManyMarkers { clip, count, max } => {
                write!(f, "clip {clip} has {count} markers, the capacity profile allows {max}")
            }
            ErrorKind::EmptyTrack { clip, track } => write!(f, "clip {clip} track {track} has no key"),
            ErrorKind::TooManyKeys { clip, track, count, max } => {
                write!(f, "clip {clip} track {track} has {count} keys, the capacity profile allows {max}")
            }
            ErrorKind::JointOutOfRange { clip, track, joint, bones } => {
                write!(f, "clip {clip} track {track} animates joint {joint}, the skeleton has {bones} bones")
            }
            ErrorKind::DuplicateChannel { clip, track, joint, key_type } => {
                write!(f, "clip {clip} track {track}: joint {joint} already has {key_type:?} keys in another track")
            }
            ErrorKind::UnknownKeyType { clip, track, key, found } => {
                write!(f, "clip {clip} track {track} key {key}: keyType {found}, expected 0 or 1")
            }
            ErrorKind::KeyFrameOutOfRange { clip, track, key, frame, length } => {
                write!(f, "clip {clip} track {track} key {key}: frame {frame} is not below the length {length}")
            }
            ErrorKind::KeyFrameOrder { clip, track, key, frame, previous } => write!(
                f,
                "clip {clip} track {track} key {key}: frame {frame} does not follow the previous key's frame {previous}"
            ),
            ErrorKind::MarkerFrameOutOfRange { clip, marker, frame, length } => {
                write!(f, "clip {clip} marker {marker}: frame {frame} is not below the length {length}")
            }
        }
    }
}

fn err(offset: usize, kind: ErrorKind) -> Error {
    Error { offset: offset as u32, kind }
}

/// Bounds-checked little-endian reads: every read during parsing goes through `need`.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn need(&self, at: usize, len: usize) -> Result<&'a [u8], Error> {
        bytes::field(self.bytes, at, len)
            .map_err(|s| err(at, ErrorKind::Truncated { needed: s.needed, available: s.available }))
    }
    fn u8(&self, at: usize) -> Result<u8, Error> {
        Ok(self.need(at, 1)?[0])
    }
    fn u16(&self, at: usize) -> Result<u16, Error> {
        let s = self.need(at, 2)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
}

// Unchecked-by-design readers for offsets the parser has validated. They still index the slice, so a
// logic error would panic rather than read out of bounds.
#[inline(always)]
pub(crate) fn le_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
#[inline(always)]
pub(crate) fn le_i16(b: &[u8], at: usize) -> i16 {
    le_u16(b, at) as i16
}
#[inline(always)]
pub(crate) fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// One bit per joint id, per key type: which channels a clip already animates.
struct ChannelSet([[u32; 8]; 2]);

impl ChannelSet {
    /// Marks the channel; false if it was already marked.
    fn insert(&mut self, joint: u8, ty: KeyType) -> bool {
        let word = &mut self.0[ty as usize][joint as usize / 32];
        let bit = 1u32 << (joint % 32);
        let fresh = *word & bit == 0;
        *word |= bit;
        fresh
    }
}

/// Where one clip lives in the file.
#[derive(Debug, Clone, Copy, Default)]
struct ClipIndex {
    header: u32,
    markers: u32,
    /// Highest joint id animated plus one (0 for a clip without tracks).
    joints: u16,
}

/// A validated ANIMBIN file: the byte slice plus the offsets of its clips and tracks.
///
/// The const parameters are the capacity profile; the defaults are the original runtime's
/// (5 animations, 50 tracks, 30 keys per track, 5 markers). See [`LargeAnimationManager`].
pub struct AnimationManager<
    'a,
    const ANIMATIONS: usize = { original::ANIMATIONS },
    const TRACKS: usize = { original::TRACKS },
    const KEYS: usize = { original::KEYS },
    const MARKERS: usize = { original::MARKERS },
> {
    bytes: &'a [u8],
    clip_count: usize,
    bone_count: usize,
    clips: [ClipIndex; ANIMATIONS],
    /// Offset of each track header, per clip.
    tracks: [[u32; TRACKS]; ANIMATIONS],
}

/// The manager with the [`large`] capacity profile.
pub type LargeAnimationManager<'a> =
    AnimationManager<'a, { large::ANIMATIONS }, { large::TRACKS }, { large::KEYS }, { large::MARKERS }>;

impl<'a, const ANIMATIONS: usize, const TRACKS: usize, const KEYS: usize, const MARKERS: usize>
    AnimationManager<'a, ANIMATIONS, TRACKS, KEYS, MARKERS>
{
    /// Validates `bytes` for a skeleton of `bone_count` bones and indexes its clips.
    pub fn parse(bytes: &'a [u8], bone_count: usize) -> Result<Self, Error> {
        let mut m = AnimationManager {
            bytes,
            clip_count: 0,
            bone_count,
            clips: [ClipIndex::default(); ANIMATIONS],
            tracks: [[0; TRACKS]; ANIMATIONS],
        };
        let r = Reader { bytes };
        if r.need(0, MAGIC.len())? != MAGIC {
            return Err(err(0, ErrorKind::BadMagic));
        }
        let version = r.u8(7)?;
        if version != VERSION {
            return Err(err(7, ErrorKind::UnsupportedVersion { found: version }));
        }
        let count = r.u8(8)? as usize;
        if count > ANIMATIONS {
            return Err(err(8, ErrorKind::TooManyAnimations { count: count as u32, max: ANIMATIONS as u32 }));
        }
        let mut at = HEADER_BYTES;
        for clip in 0..count {
            at = m.parse_clip(&r, clip, at)?;
        }
        m.clip_count = count;
        Ok(m)
    }

    /// Validates clip `clip` starting at `at`; returns the offset just past it.
    fn parse_clip(&mut self, r: &Reader<'a>, clip: usize, start: usize) -> Result<usize, Error> {
        let c = clip as u16;
        r.need(start, CLIP_HEADER_BYTES)?;
        let length = r.u16(start + 36)?;
        if length == 0 {
            return Err(err(start + 36, ErrorKind::ZeroLength { clip: c }));
        }
        let track_count = r.u16(start + 38)? as usize;
        if track_count > TRACKS {
            return Err(err(
                start + 38,
                ErrorKind::TooManyTracks { clip: c, count: track_count as u32, max: TRACKS as u32 },
            ));
        }
        let marker_count = r.u16(start + 40)? as usize;
        if marker_count > MARKERS {
            return Err(err(
                start + 40,
                ErrorKind::TooManyMarkers { clip: c, count: marker_count as u32, max: MARKERS as u32 },
            ));
        }
        let mut channels = ChannelSet([[0; 8]; 2]);
        let mut at = start + CLIP_HEADER_BYTES;
        let mut joints = 0u16;
        for track in 0..track_count {
            self.tracks[clip][track] = at as u32;
            at = self.parse_track(r, c, track as u16, length, at, &mut channels)?;
            joints = joints.max(bytes_joint(r.bytes, self.tracks[clip][track]) + 1);
        }
        let markers = at;
        for marker in 0..marker_count {
            let frame_at = at + NAME_BYTES;
            r.need(at, MARKER_BYTES)?;
            let frame = r.u16(frame_at)?;
            if frame >= length {
                return Err(err(
                    frame_at,
                    ErrorKind::MarkerFrameOutOfRange { clip: c, marker: marker as u16, frame, length },
                ));
            }
            at += MARKER_BYTES;
        }
        self.clips[clip] = ClipIndex { header: start as u32, markers: markers as u32, joints };
        Ok(at)
    }

    fn parse_track(
        &self,
        r: &Reader<'a>,
        clip: u16,
        track: u16,
        length: u16,
        start: usize,
        channels: &mut ChannelSet,
    ) -> Result<usize, Error> {
        r.need(start, TRACK_HEADER_BYTES)?;
        let joint = r.u8(start + 1)?;
        if joint as usize >= self.bone_count {
            return Err(err(
                start + 1,
                ErrorKind::JointOutOfRange { clip, track, joint, bones: self.bone_count as u32 },
            ));
        }
        let key_count = r.u16(start + 2)? as usize;
        if key_count == 0 {
            return Err(err(start + 2, ErrorKind::EmptyTrack { clip, track }));
        }
        if key_count > KEYS {
            return Err(err(
                start + 2,
                ErrorKind::TooManyKeys { clip, track, count: key_count as u32, max: KEYS as u32 },
            ));
        }
        // Last frame seen per key type, to check the order.
        let mut previous: [Option<u16>; 2] = [None, None];
        let mut at = start + TRACK_HEADER_BYTES;
        for key in 0..key_count {
            let k = key as u16;
            r.need(at, KEY_HEADER_BYTES)?;
            let frame = r.u16(at)?;
            let type_byte = r.u8(at + 2)?;
            let ty = KeyType::from_byte(type_byte)
                .ok_or(err(at + 2, ErrorKind::UnknownKeyType { clip, track, key: k, found: type_byte }))?;
            if frame >= length {
                return Err(err(at, ErrorKind::KeyFrameOutOfRange { clip, track, key: k, frame, length }));
            }
            match previous[ty as usize] {
                Some(p) if frame <= p => {
                    return Err(err(at, ErrorKind::KeyFrameOrder { clip, track, key: k, frame, previous: p }));
                }
                Some(_) => {}
                None => {
                    if !channels.insert(joint, ty) {
                        return Err(err(start + 1, ErrorKind::DuplicateChannel { clip, track, joint, key_type: ty }));
                    }
                }
            }
            previous[ty as usize] = Some(frame);
            r.need(at + KEY_HEADER_BYTES, ty.payload_bytes())?;
            at += KEY_HEADER_BYTES + ty.payload_bytes();
        }
        Ok(at)
    }

    /// Number of clips in the file.
    pub fn len(&self) -> usize {
        self.clip_count
    }

    pub fn is_empty(&self) -> bool {
        self.clip_count == 0
    }

    /// The bone count the file was validated against.
    pub fn bone_count(&self) -> usize {
        self.bone_count
    }

    /// Clip `index` in file order, or `None` past the end.
    pub fn clip(&self, index: usize) -> Option<Clip<'_>> {
        if index >= self.clip_count {
            return None;
        }
        let ix = self.clips[index];
        let count = le_u16(self.bytes, ix.header as usize + 38) as usize;
        Some(Clip {
            bytes: self.bytes,
            header: ix.header,
            markers: ix.markers,
            tracks: &self.tracks[index][..count],
            joints: ix.joints as usize,
        })
    }

    /// The first clip whose name is `name` (compared up to the name's terminator).
    pub fn find(&self, name: &[u8]) -> Option<Clip<'_>> {
        (0..self.clip_count).filter_map(|i| self.clip(i)).find(|c| c.name() == name)
    }

    /// The clips in file order.
    pub fn clips(&self) -> impl Iterator<Item = Clip<'_>> {
        (0..self.clip_count).filter_map(move |i| self.clip(i))
    }
}

fn bytes_joint(bytes: &[u8], track: u32) -> u16 {
    bytes[track as usize + 1] as u16
}

/// Name bytes up to the first NUL, or all 32 when there is none.
fn name_at(bytes: &[u8], at: usize) -> &[u8] {
    bytes::name(bytes, at, NAME_BYTES)
}

/// One validated clip.
#[derive(Clone, Copy)]
pub struct Clip<'m> {
    bytes: &'m [u8],
    header: u32,
    markers: u32,
    tracks: &'m [u32],
    joints: usize,
}

impl<'m> Clip<'m> {
    /// The name without its NUL padding (32 bytes when the field has no terminator).
    pub fn name(&self) -> &'m [u8] {
        name_at(self.bytes, self.header as usize)
    }
    /// The raw `flags` word.
    pub fn flags(&self) -> u32 {
        le_i32(self.bytes, self.header as usize + NAME_BYTES) as u32
    }
    /// Flag bit 0: the clip loops.
    pub fn looping(&self) -> bool {
        self.flags() & 1 != 0
    }
    /// Length in frames (at least 1); keys and markers lie in `0..length`.
    pub fn length(&self) -> u16 {
        le_u16(self.bytes, self.header as usize + 36)
    }
    pub fn track_count(&self) -> usize {
        self.tracks.len()
    }
    pub fn track(&self, index: usize) -> Option<Track<'m>> {
        let at = *self.tracks.get(index)? as usize;
        Some(Track { bytes: self.bytes, at })
    }
    pub fn tracks(&self) -> impl Iterator<Item = Track<'m>> + '_ {
        (0..self.tracks.len()).filter_map(move |i| self.track(i))
    }
    pub fn marker_count(&self) -> usize {
        le_u16(self.bytes, self.header as usize + 40) as usize
    }
    pub fn marker(&self, index: usize) -> Option<Marker<'m>> {
        if index >= self.marker_count() {
            return None;
        }
        let at = self.markers as usize + index * MARKER_BYTES;
        Some(Marker { name: name_at(self.bytes, at), frame: le_u16(self.bytes, at + NAME_BYTES) })
    }
    pub fn markers(&self) -> impl Iterator<Item = Marker<'m>> + '_ {
        (0..self.marker_count()).filter_map(move |i| self.marker(i))
    }
    /// Byte offset of the clip header in the file (identifies the clip cheaply).
    pub fn offset(&self) -> u32 {
        self.header
    }
    /// Highest joint id animated plus one: a skeleton needs at least this many bones.
    pub fn joint_count(&self) -> usize {
        self.joints
    }
    pub(crate) fn bytes(&self) -> &'m [u8] {
        self.bytes
    }
}

/// A named event at a frame of a clip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker<'m> {
    pub name: &'m [u8],
    pub frame: u16,
}

/// One validated track: the keys of one joint.
#[derive(Clone, Copy)]
pub struct Track<'m> {
    bytes: &'m [u8],
    at: usize,
}

impl<'m> Track<'m> {
    /// The `type` byte (the original never reads it; playback follows each key's type).
    pub fn track_type(&self) -> u8 {
        self.bytes[self.at]
    }
    pub fn joint(&self) -> u8 {
        self.bytes[self.at + 1]
    }
    pub fn key_count(&self) -> usize {
        le_u16(self.bytes, self.at + 2) as usize
    }
    /// Offset of the first key in the file.
    pub fn first_key_offset(&self) -> usize {
        self.at + TRACK_HEADER_BYTES
    }
    /// The keys in file order.
    pub fn keys(&self) -> Keys<'m> {
        Keys { bytes: self.bytes, at: self.first_key_offset(), left: self.key_count() }
    }
}

/// A decoded key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub frame: u16,
    pub value: KeyValue,
}

/// A key's payload, FP12 (4096 = 1.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyValue {
    /// Quaternion `[w, x, y, z]` as stored.
    Rotation([i16; 4]),
    /// Translation `[x, y, z]`.
    Translation([i32; 3]),
}

impl KeyValue {
    pub fn key_type(&self) -> KeyType {
        match self {
            KeyValue::Rotation(_) => KeyType::Rotation,
            KeyValue::Translation(_) => KeyType::Translation,
        }
    }
}

/// Decodes the validated key at `at`; returns it and the offset of the next key.
#[inline]
pub(crate) fn key_at(bytes: &[u8], at: usize) -> (Key, usize) {
    let frame = le_u16(bytes, at);
    let p = at + KEY_HEADER_BYTES;
    if bytes[at + 2] == KeyType::Rotation as u8 {
        let q = [le_i16(bytes, p), le_i16(bytes, p + 2), le_i16(bytes, p + 4), le_i16(bytes, p + 6)];
        (Key { frame, value: KeyValue::Rotation(q) }, p + ROTATION_PAYLOAD_BYTES)
    } else {
        let t = [le_i32(bytes, p), le_i32(bytes, p + 4), le_i32(bytes, p + 8)];
        (Key { frame, value: KeyValue::Translation(t) }, p + TRANSLATION_PAYLOAD_BYTES)
    }
}

/// Iterator over a track's keys.
#[derive(Clone)]
pub struct Keys<'m> {
    bytes: &'m [u8],
    at: usize,
    left: usize,
}

impl Iterator for Keys<'_> {
    type Item = Key;
    fn next(&mut self) -> Option<Key> {
        if self.left == 0 {
            return None;
        }
        let (key, next) = key_at(self.bytes, self.at);
        self.at = next;
        self.left -= 1;
        Some(key)
    }
}
