//! The primitive stream: a character's surface as runs of flat triangles, quads and quad strips,
//! laid out for the console's triangle loop (one word load per back face for a triangle or quad, one
//! per quad of a strip).
//!
//! ```text
//! a run: header word  kind (bits 0-1) | count << 2 (bits 2-15, at least 1) | material << 16 (bits 16-23)
//!                     | base << 24 (bits 24-31): the run's indices count from vertex 16 * base
//!        GP0 word     the GPU command (0x20 flat triangle, 0x28 flat quad) << 24 | r | g << 8 | b << 16,
//!                     the material's colour
//!        body         RUN_TRIANGLES: `count` words a << 2 | b << 12 | c << 22 (the triangle (a, b, c))
//!                     RUN_QUADS:     `count` pairs of words: a << 2 | b << 12 | c << 22, then d << 2: the
//!                                    planar quad (a, b, c) + (a, c, d), facing as (a, b, c) does, drawn
//!                                    as the points b, c, a, d
//!                     RUN_STRIP:     `count` + 1 words t << 2 | b << 18: quad k is (t_k, b_k, b_k+1,
//!                                    t_k+1) in winding order, facing as (t_k, b_k+1, t_k+1) does, drawn
//!                                    as the points b_k, t_k, b_k+1, t_k+1
//! the end: one word STREAM_END
//! ```
//! A field holds a vertex's index from its run's base vertex (`16 * base`) times 4, the byte offset of
//! its projected word from the base's, so that the loop masks instead of shifting: below 1024 in a
//! triangle or quad word (10 bits), below 16,384 in a strip word (14 bits). The loop moves its
//! projected-vertex pointers to the base once per run, so a character of up to 5,104 vertices
//! (`MAX_STREAM_VERTICES`) costs nothing more per primitive than one of 1,024; the importer orders the
//! vertices so that each run's primitives lie within one window. The GPU draws a four-point
//! polygon as the triangles 0-1-2 and 1-2-3: the two triangles of the quad. A quad is planar (the
//! importer pairs only coplanar triangles), so one NCLIP decides for both.
//!
//! [`check`] validates a stream once (the parser calls it); [`Primitives`] reads one primitive at a
//! time from bytes at any alignment, for the host, the sinks other than the console's ordering
//! table, and blobs that are not 4-aligned in memory.

use super::{u32_at, TableError};

/// Run kinds (header bits 0-1).
pub const RUN_TRIANGLES: u32 = 0;
pub const RUN_QUADS: u32 = 1;
pub const RUN_STRIP: u32 = 2;
/// The word that ends the stream (kind 3, which no run has).
pub const STREAM_END: u32 = 3;
/// Words before a run's body.
pub const RUN_HEADER_WORDS: usize = 2;
/// Vertices a triangle or quad word can name from its run's base (its 10-bit fields).
pub const MAX_INDEXED_VERTICES: usize = 1024;
/// Vertices a strip word can name from its run's base (its 14-bit fields).
pub const MAX_STRIP_INDEXED_VERTICES: usize = 1 << 14;
/// A run's base is a multiple of this many vertices.
pub const RUN_BASE_UNIT: usize = 16;
/// The largest base vertex a run header holds (its top byte).
pub const MAX_RUN_BASE: usize = 255 * RUN_BASE_UNIT;
/// Vertices a stream can reach: a triangle or quad's window from the largest base.
pub const MAX_STREAM_VERTICES: usize = MAX_RUN_BASE + MAX_INDEXED_VERTICES;
/// GP0 commands of a flat, opaque triangle and four-point polygon (the colour goes in the low 24 bits).
pub const GP0_FLAT_TRIANGLE: u32 = 0x20 << 24;
pub const GP0_FLAT_QUAD: u32 = 0x28 << 24;

/// A run header word whose indices count from vertex 0.
pub const fn run_header(kind: u32, count: usize, material: u8) -> u32 {
    run_header_from(kind, count, material, 0)
}

/// A run header word whose indices count from vertex `base` (a multiple of [`RUN_BASE_UNIT`], at
/// most [`MAX_RUN_BASE`]).
pub const fn run_header_from(kind: u32, count: usize, material: u8, base: usize) -> u32 {
    kind | (count as u32) << 2 | (material as u32) << 16 | ((base / RUN_BASE_UNIT) as u32) << 24
}

/// The first vertex a run header's indices count from.
pub const fn run_base(header: u32) -> usize {
    (header >> 24) as usize * RUN_BASE_UNIT
}

/// A triangle or quad word: three vertex indices below [`MAX_INDEXED_VERTICES`].
pub const fn pack3(a: usize, b: usize, c: usize) -> u32 {
    (a as u32) << 2 | (b as u32) << 12 | (c as u32) << 22
}

/// The three vertex indices of a triangle or quad word.
pub const fn unpack3(w: u32) -> [usize; 3] {
    [
        ((w >> 2) & 0x3FF) as usize,
        ((w >> 12) & 0x3FF) as usize,
        (w >> 22) as usize,
    ]
}

/// A strip word: the pair (t, b).
pub const fn pack_pair(t: usize, b: usize) -> u32 {
    (t as u32) << 2 | (b as u32) << 18
}

/// The pair (t, b) of a strip word.
pub const fn unpack_pair(w: u32) -> [usize; 2] {
    [((w & 0xFFFF) >> 2) as usize, (w >> 18) as usize]
}

/// One triangle or quad of the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Primitive {
    /// Index of its first triangle among the stream's triangles (a quad is two: this and the next).
    pub first_triangle: usize,
    /// Vertex indices in the GPU's order: three for a triangle, four for a quad (drawn as the
    /// triangles 0-1-2 and 1-2-3).
    pub points: [u16; 4],
    pub quad: bool,
    /// The triangle whose NCLIP decides whether it faces the camera, in winding order.
    pub facing: [u16; 3],
    /// A quad's other triangle, in winding order (a triangle's `facing` again): with `facing`, the two
    /// source triangles of the quad.
    pub second: [u16; 3],
    pub material: u8,
    /// The run's GP0 word: command and colour.
    pub gp0: u32,
}

impl Primitive {
    /// Its triangles: one, or a quad's two (points 0-1-2 and 1-2-3).
    pub fn triangle_count(&self) -> usize {
        1 + self.quad as usize
    }
}

/// Reads the stream that starts at `offset` in `bytes` (already checked), one primitive at a time.
#[derive(Clone, Debug)]
pub struct Primitives<'a> {
    bytes: &'a [u8],
    /// The next word to read.
    at: usize,
    /// The current run: kind, primitives left, material, GP0 word, base vertex.
    run: (u32, usize, u8, u32, usize),
    /// A strip's previous pair.
    pair: [usize; 2],
    triangles: usize,
}

impl<'a> Primitives<'a> {
    pub(crate) fn new(bytes: &'a [u8], offset: usize) -> Self {
        Primitives {
            bytes,
            at: offset,
            run: (STREAM_END, 0, 0, 0, 0),
            pair: [0; 2],
            triangles: 0,
        }
    }

    fn word(&mut self) -> u32 {
        let w = u32_at(self.bytes, self.at);
        self.at += 4;
        w
    }
}

impl Iterator for Primitives<'_> {
    type Item = Primitive;

    fn next(&mut self) -> Option<Primitive> {
        while self.run.1 == 0 {
            let header = self.word();
            if header == STREAM_END {
                self.at -= 4;
                return None;
            }
            let gp0 = self.word();
            self.run = (
                header & 3,
                ((header >> 2) & 0x3FFF) as usize,
                (header >> 16) as u8,
                gp0,
                run_base(header),
            );
            if self.run.0 == RUN_STRIP {
                self.pair = unpack_pair(self.word());
            }
        }
        self.run.1 -= 1;
        let (kind, _, material, gp0, base) = self.run;
        let v = |i: usize| (base + i) as u16;
        let (points, quad, facing, second) = match kind {
            RUN_TRIANGLES => {
                let [a, b, c] = unpack3(self.word());
                (
                    [v(a), v(b), v(c), v(c)],
                    false,
                    [v(a), v(b), v(c)],
                    [v(a), v(b), v(c)],
                )
            }
            RUN_QUADS => {
                let [a, b, c] = unpack3(self.word());
                let d = (self.word() >> 2) as usize;
                (
                    [v(b), v(c), v(a), v(d)],
                    true,
                    [v(a), v(b), v(c)],
                    [v(a), v(c), v(d)],
                )
            }
            _ => {
                let [t0, b0] = self.pair;
                let [t1, b1] = unpack_pair(self.word());
                self.pair = [t1, b1];
                (
                    [v(b0), v(t0), v(b1), v(t1)],
                    true,
                    [v(t0), v(b1), v(t1)],
                    [v(t0), v(b0), v(b1)],
                )
            }
        };
        let first_triangle = self.triangles;
        self.triangles += 1 + quad as usize;
        Some(Primitive {
            first_triangle,
            points,
            quad,
            facing,
            second,
            material,
            gp0,
        })
    }
}

/// What a valid stream holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamCounts {
    /// Triangles, a quad counting two.
    pub triangles: usize,
    /// Quads, in quad runs and strips.
    pub quads: usize,
    pub runs: usize,
}

/// Checks the stream of `words` words at `offset` (inside `bytes`): run headers, materials below
/// `materials` and GP0 words against their colours (`colour(m)`), every index (from its run's base)
/// below `vertices`, unused bits zero, the end word last. A bad index names the stream word it is in.
pub(crate) fn check(
    bytes: &[u8],
    offset: usize,
    words: usize,
    vertices: usize,
    materials: usize,
    colour: impl Fn(usize) -> [u8; 3],
) -> Result<StreamCounts, TableError> {
    let start = offset;
    let end = offset + 4 * words;
    let bad = |offset: usize, what: &'static str| Err(TableError::BadPrimitive { offset, what });
    let index = |at: usize, what: &'static str, base: usize, value: usize| {
        let value = base + value;
        if value < vertices {
            Ok(())
        } else {
            Err(TableError::BadIndex {
                what,
                index: (at - start) / 4,
                offset: at,
                value,
                limit: vertices,
            })
        }
    };
    let mut counts = StreamCounts::default();
    let mut at = offset;
    loop {
        if at + 4 > end {
            return bad(at, "the stream has no end word");
        }
        let header = u32_at(bytes, at);
        if header == STREAM_END {
            if at + 4 != end {
                return bad(at, "words after the end word");
            }
            return Ok(counts);
        }
        let (kind, count, material) = (
            header & 3,
            ((header >> 2) & 0x3FFF) as usize,
            ((header >> 16) & 0xFF) as usize,
        );
        if kind == STREAM_END || count == 0 {
            return bad(at, "run header: kind 0-2 and a count of at least 1");
        }
        let base = run_base(header);
        let body = match kind {
            RUN_TRIANGLES => count,
            RUN_QUADS => 2 * count,
            _ => count + 1,
        };
        if at + 4 * (RUN_HEADER_WORDS + body) + 4 > end {
            return bad(at, "run runs past the stream's end word");
        }
        if material >= materials {
            return Err(TableError::BadIndex {
                what: "run material",
                index: (at - start) / 4,
                offset: at + 2,
                value: material,
                limit: materials,
            });
        }
        let [r, g, b] = colour(material);
        let command = if kind == RUN_TRIANGLES {
            GP0_FLAT_TRIANGLE
        } else {
            GP0_FLAT_QUAD
        };
        if u32_at(bytes, at + 4) != command | r as u32 | (g as u32) << 8 | (b as u32) << 16 {
            return bad(
                at + 4,
                "GP0 word: the run kind's command and its material's colour",
            );
        }
        at += 4 * RUN_HEADER_WORDS;
        for k in 0..body {
            let w = u32_at(bytes, at);
            match kind {
                RUN_STRIP => {
                    if w & 0x0003_0003 != 0 {
                        return bad(at, "strip pair: bits 0-1 and 16-17 zero");
                    }
                    let [t, b] = unpack_pair(w);
                    index(at, "strip vertex", base, t)?;
                    index(at + 2, "strip vertex", base, b)?;
                }
                RUN_QUADS if k % 2 == 1 => {
                    if w & !0xFFC != 0 {
                        return bad(at, "quad fourth vertex: bits 0-1 and 12-31 zero");
                    }
                    index(at, "quad vertex", base, (w >> 2) as usize)?;
                }
                _ => {
                    if w & 3 != 0 {
                        return bad(at, "triangle word: bits 0-1 zero");
                    }
                    for v in unpack3(w) {
                        index(at, "triangle vertex", base, v)?;
                    }
                }
            }
            at += 4;
        }
        counts.runs += 1;
        let quads = if kind == RUN_TRIANGLES { 0 } else { count };
        counts.quads += quads;
        counts.triangles += count + quads;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    const RED: u32 = 0x10_20_30;
    const BLUE: u32 = 0x40_50_60;

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn colour(m: usize) -> [u8; 3] {
        let w = [RED, BLUE][m];
        [w as u8, (w >> 8) as u8, (w >> 16) as u8]
    }

    /// One run of each kind: a triangle, a quad, a strip of two quads; then the end word.
    fn stream() -> Vec<u32> {
        std::vec![
            run_header(RUN_TRIANGLES, 1, 0),
            GP0_FLAT_TRIANGLE | RED,
            pack3(0, 1, 2),
            run_header(RUN_QUADS, 1, 1),
            GP0_FLAT_QUAD | BLUE,
            pack3(3, 4, 5),
            6 << 2,
            run_header(RUN_STRIP, 2, 0),
            GP0_FLAT_QUAD | RED,
            pack_pair(7, 8),
            pack_pair(9, 10),
            pack_pair(11, 12),
            STREAM_END,
        ]
    }

    #[test]
    fn reads_each_run_kind_in_drawing_order() {
        let w = stream();
        let b = bytes(&w);
        let counts = check(&b, 0, w.len(), 13, 2, colour).unwrap();
        assert_eq!(
            counts,
            StreamCounts {
                triangles: 7,
                quads: 3,
                runs: 3
            }
        );
        let p: Vec<_> = Primitives::new(&b, 0)
            .map(|p| {
                (
                    p.first_triangle,
                    p.points,
                    p.quad,
                    p.facing,
                    p.second,
                    p.material,
                )
            })
            .collect();
        assert_eq!(
            p,
            [
                (0, [0, 1, 2, 2], false, [0, 1, 2], [0, 1, 2], 0),
                // (a, b, c) + (a, c, d) drawn b, c, a, d.
                (1, [4, 5, 3, 6], true, [3, 4, 5], [3, 5, 6], 1),
                // Quad k = (t_k, b_k, b_k+1, t_k+1), facing (t_k, b_k+1, t_k+1), drawn b_k, t_k, b_k+1,
                // t_k+1; its other triangle (t_k, b_k, b_k+1).
                (3, [8, 7, 10, 9], true, [7, 10, 9], [7, 8, 10], 0),
                (5, [10, 9, 12, 11], true, [9, 12, 11], [9, 10, 12], 0),
            ]
        );
        let gp0: Vec<u32> = Primitives::new(&b, 0).map(|p| p.gp0).collect();
        assert_eq!(
            gp0,
            [
                GP0_FLAT_TRIANGLE | RED,
                GP0_FLAT_QUAD | BLUE,
                GP0_FLAT_QUAD | RED,
                GP0_FLAT_QUAD | RED
            ]
        );
    }

    #[test]
    fn a_runs_indices_count_from_its_base() {
        let w = std::vec![
            run_header_from(RUN_TRIANGLES, 1, 0, 4080),
            GP0_FLAT_TRIANGLE | RED,
            pack3(0, 1, 1023),
            run_header_from(RUN_QUADS, 1, 1, 32),
            GP0_FLAT_QUAD | BLUE,
            pack3(3, 4, 5),
            6 << 2,
            run_header_from(RUN_STRIP, 1, 0, 16),
            GP0_FLAT_QUAD | RED,
            pack_pair(7, 8),
            pack_pair(9, 5000),
            STREAM_END,
        ];
        assert_eq!(run_base(w[0]), MAX_RUN_BASE);
        let b = bytes(&w);
        assert!(check(&b, 0, w.len(), MAX_STREAM_VERTICES, 2, colour).is_ok());
        assert_eq!(
            check(&b, 0, w.len(), MAX_STREAM_VERTICES - 1, 2, colour),
            Err(TableError::BadIndex { what: "triangle vertex", index: 2, offset: 8, value: 5103, limit: 5103 })
        );
        let points: Vec<_> = Primitives::new(&b, 0).map(|p| p.points).collect();
        assert_eq!(points, [[4080, 4081, 5103, 5103], [36, 37, 35, 38], [24, 23, 5016, 25]]);
    }

    #[test]
    fn every_malformed_word_is_named_by_its_offset() {
        let bad = |edit: &dyn Fn(&mut Vec<u32>), vertices: usize| {
            let mut w = stream();
            edit(&mut w);
            check(&bytes(&w), 0, w.len(), vertices, 2, colour).err()
        };
        let primitive = |offset, what| Some(TableError::BadPrimitive { offset, what });
        assert_eq!(
            bad(
                &|w| {
                    w.pop();
                },
                13
            ),
            primitive(28, "run runs past the stream's end word")
        );
        assert_eq!(
            bad(&|w| w.clear(), 13),
            primitive(0, "the stream has no end word")
        );
        assert_eq!(
            bad(&|w| w.push(0), 13),
            primitive(48, "words after the end word")
        );
        let header = "run header: kind 0-2 and a count of at least 1";
        assert_eq!(
            bad(&|w| w[3] = run_header(RUN_QUADS, 0, 1), 13),
            primitive(12, header)
        );
        // A base moves every index of its run: the triangle (0, 1, 2) from base 16 needs 19 vertices.
        assert_eq!(
            bad(&|w| w[0] |= 1 << 24, 13),
            Some(TableError::BadIndex { what: "triangle vertex", index: 2, offset: 8, value: 16, limit: 13 })
        );
        assert_eq!(
            bad(&|w| w[7] = run_header(RUN_STRIP, 3, 0), 13),
            primitive(28, "run runs past the stream's end word")
        );
        let gp0 = "GP0 word: the run kind's command and its material's colour";
        assert_eq!(bad(&|w| w[1] = GP0_FLAT_QUAD | RED, 13), primitive(4, gp0));
        assert_eq!(bad(&|w| w[4] = GP0_FLAT_QUAD | RED, 13), primitive(16, gp0));
        assert_eq!(
            bad(&|w| w[3] = run_header(RUN_QUADS, 1, 2), 13),
            Some(TableError::BadIndex {
                what: "run material",
                index: 3,
                offset: 14,
                value: 2,
                limit: 2
            })
        );
        assert_eq!(
            bad(&|w| w[2] |= 1, 13),
            primitive(8, "triangle word: bits 0-1 zero")
        );
        assert_eq!(
            bad(&|w| w[6] |= 1 << 12, 13),
            primitive(24, "quad fourth vertex: bits 0-1 and 12-31 zero")
        );
        assert_eq!(
            bad(&|w| w[10] |= 1 << 16, 13),
            primitive(40, "strip pair: bits 0-1 and 16-17 zero")
        );
        assert_eq!(
            bad(&|_| {}, 12),
            Some(TableError::BadIndex {
                what: "strip vertex",
                index: 11,
                offset: 46,
                value: 12,
                limit: 12
            })
        );
        assert_eq!(
            bad(&|_| {}, 2),
            Some(TableError::BadIndex {
                what: "triangle vertex",
                index: 2,
                offset: 8,
                value: 2,
                limit: 2
            })
        );
        assert_eq!(
            bad(&|w| w[6] = 9 << 2, 7),
            Some(TableError::BadIndex {
                what: "quad vertex",
                index: 6,
                offset: 24,
                value: 9,
                limit: 7
            })
        );
    }
}
